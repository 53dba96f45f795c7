// Generates ../../data/go_regexp.json: Go's verdicts on (pattern, input)
// pairs, for kcel's `cel::go::regexp` to reproduce (tests/go_regexp.rs).
//
//	python3 extract_patterns.py $KCEL_SHARED/corpora > crd_patterns.json
//	go run . > ../../data/go_regexp.json
//
// Kubernetes 1.35 builds with Go 1.25; the file records the toolchain that
// wrote it (`go`). Inputs keep to characters assigned by Unicode 15.0, so
// the Unicode versions of Go 1.25, of the toolchain and of regex-syntax agree
// on every record.
//
// Each record: the pattern, Go's `regexp.Compile` error text (or null) and,
// when it compiles, per input `MatchString`, `FindString`, whether
// `FindStringIndex` found a match, and `FindAllString(s, -1)`.
package main

import (
	"encoding/json"
	"math/rand"
	"os"
	"regexp"
	"runtime"
	"strings"
)

type result struct {
	Input   string   `json:"input"`
	Match   bool     `json:"match"`
	Find    string   `json:"find"`
	Found   bool     `json:"found"`
	FindAll []string `json:"find_all"`
}

type record struct {
	Pattern string   `json:"pattern"`
	Error   *string  `json:"error"`
	Cases   []result `json:"cases"`
}

type group struct {
	patterns []string
	inputs   []string
}

var textInputs = []string{"", "a", "abc", "ABC", "a b", "a\nb", "é", "Ω", "中文", "x1_y", "foo.bar-baz", "a\tb\r\n"}

var unicodeInputs = []string{"a", "Z", "é", "Ω", "ω", "中", "Д", "1", "٣", "$", "€", "\u00a0", " ", "\u0378", "😀", "\x01", "_", "ǅ", "\u2028", "\ue000"}

var foldInputs = []string{"K", "k", "\u212a", "S", "s", "ſ", "Σ", "σ", "ς", "ß", "ẞ", "Ǆ", "ǅ", "ǆ", "İ", "ı", "i", "I", "µ", "μ", "Μ", "Å", "å", "\u212b", "θ", "ϑ", "Θ"}

var groups = []group{
	// Bracket literals and class syntax.
	{[]string{`^[^][ ()<>]+$`, `[]a]`, `[^]a]`, `[a[]`, `[[]`, `[a&&b]`, `[a--b]`, `[a~~b]`, `[\[\]]`, `[-a]`, `[a-]`, `[a-c-e]`, `[\d-z]`, `[a-\d]`,
		`^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00-\x1f]+$`, `[[:alpha:]]`, `[[:^alpha:]]+`, `[[:word:]]+`, `[[:punct:]]`, `[[:space:]]`, `[[:xdigit:]]+`, `[[:alpha:][:digit:]]+`, `[^[:alnum:]]`,
		`[[:foo:]]`, `[[:alpha:]`, `[[:alpha]`, `[x[:alpha:]]`, `[\Q]\E]`, `[^\n]`, `[^a]`, `[\x00-\x{10FFFF}]`, `[^\x00-\x{10FFFF}]`, `[a-a]`, `[\-]`, `[\]]`, `[^-]`, `[.]`, `[$^]`},
		[]string{"", "a", "b", "[", "]", "-", "&", "~", " ", "<>", "abc", "z", "\n", "é", "1", "\"", "x&&y", "a-b", "\x7f", "\t"}},
	// ASCII-only Perl classes and boundaries against Unicode text.
	{[]string{`\w`, `^\w+$`, `\W`, `\d+`, `\D`, `\s`, `\S+`, `\b`, `\B`, `a\b`, `\ba`, `\bé`, `é\b`, `\b\w+\b`, `[\w]`, `[^\w]`, `[\W\d]`, `[\s\S]`, `(?i)\w`, `(?i)\W`, `(?i)[^\w]`, `(?i)[[:upper:]]`, `(?i)[[:^lower:]]`},
		[]string{"", "abc", "é", "café", "٣", "1٣", "\u00a0", "\u2003", "x y", "a\tb", "a\vb", "\f", "ſ", "\u212a", "naïve", "a_b", "ß", "日本"}},
	// Case folding.
	{[]string{`(?i)k`, `(?i)K`, `(?i)\x{212a}`, `(?i)s`, `(?i)ſ`, `(?i)σ`, `(?i)Σ`, `(?i)ς`, `(?i)[k]`, `(?i)[a-z]+`, `(?i)[^k]`, `(?i)[^a-z]`, `(?i)straße`, `(?i)ǅ`, `(?i)i`, `(?i)ı`, `(?i)İ`, `(?i)µ`, `(?i)å`, `(?i)θ`,
		`(?i)\p{Lu}`, `(?i)\p{Ll}`, `(?i)\p{Greek}`, `(?i)\P{Lu}`, `(?i)[\p{Lu}]`, `(?i)\p{ASCII}`, `(?i)[[:ascii:]]`, `[Kk]`, `[Σσς]`, `(?i)[Σσ]`, `(?i)Ⓐ`, `(?i:k)K`, `(?i)k(?-i)k`, `(?i)[k-s]`, `(?i)[K-S]`, `(?i)[\x{212a}]`},
		foldInputs},
	// Unicode classes and scripts.
	{[]string{`\pL`, `\p{L}`, `\p{Lu}`, `\PL`, `\p{^L}`, `\P{^L}`, `\p{Greek}`, `\p{greek}`, `\p{GREEK}`, `\p{Letter}`, `\p{letter}`, `\p{Uppercase_Letter}`, `\p{Any}`, `\p{ASCII}`, `\p{ascii}`, `\p{Assigned}`, `\p{Cn}`, `\p{LC}`, `\p{Lc}`, `\p{Han}`,
		`\p{Cyrillic}`, `\p{Latin}`, `\p{Nd}`, `\p{N}`, `\p{S}`, `\p{Sc}`, `\p{Zs}`, `\p{Z}`, `\p{C}`, `\p{Cc}`, `\p{Co}`, `\p{Cf}`, `\p{Arabic}`, `\p{Common}`, `\p{Inherited}`, `\p{Old_Italic}`, `\p{OldItalic}`, `\p{Klingon}`, `\p{`, `\p{L`, `\pX`, `\p`, `\pLu`, `\p{}`, `\p{^}`,
		`[\p{Greek}\d]`, `[^\p{L}]`, `[\P{L}]`, `[\p{L}\p{N}]+`, `[\p{Lu}-]`, `\p{Cs}`, `\p{digit}`, `\p{punct}`, `\p{cntrl}`, `\p{Zl}`, `[\pN\pL]`, `\p{Braille}`, `\p{Emoji}`},
		unicodeInputs},
	// Anchors, flags and dot.
	{[]string{`^a$`, `(?m)^a$`, `\Aa\z`, `^`, `$`, `(?m)$`, `(?m)^`, `.`, `(?s).`, `(?s:.)a`, `a.c`, `(?U)a+`, `(?U)a+?`, `a+?`, `a*?`, `a??`, `(?U)a??`, `(?i:a)b`, `(?i)a(?-i)b`, `(?im-s:^x.)`, `(?-)`, `(?i-)`, `(?-i)`, `(?i)(?-i:A)`, `(?m-m)^a`,
		`(?sm)^.+$`, `\z`, `\Z`, `\A`, `^$`, `(?m)^$`, `a$\n`, `(?:a|b)+`, `(a)(b)?`, `(?P<x>a)`, `(?<y>a)`, `(?P<a_1>x)(?P<b>y)`, `(?'n'a)`, `(?P=n)`, `(?#c)`, `(?x) a`, `(?flags)`, `(?i)(?s)(?m)(?U)`},
		[]string{"", "a", "A", "ab", "aB", "Ab", "aaa", "b\na", "a\nb", "a\n", "\n", "x\ny", "xyz", "abc\nabc", "\u2028a"}},
	// Repetition, empty matches and leftmost-first preference.
	{[]string{`a{2}`, `a{2,}`, `a{2,3}`, `a{,3}`, `a{0}`, `a{0,0}`, `a{1,1}`, `a{3,2}`, `a{`, `a{x}`, `a{1`, `a{1,`, `a{01}`, `{2}`, `a|{`, `(a|ab)(c|bcd)(d*)`, `a|ab`, `ab|a`, `(a*)*`, `(a*)+`, `(|a)*`, `(|a)+`, `(a|)+`, `(?:a*)*b`, `x*`, `.*`, `a*`, `(a+)(b+)?`, `[ab]*?b`, `(?U)(a|b)*`,
		`a*b*`, `(ab|a)(bc|c)`, `a?a?aa`, `(a?){3}a{3}`, `b*?`, `()`, `(|)`, `(a|b|)`, `\b`, `\B`, `x*|y`, `(?:)`, `a{2}{3}`, `a**`, `a*?+`, `a+*`, `a++`, `a??+`, `(?:a{2})*`, `(a{2}){3}`},
		[]string{"", "a", "aa", "aaa", "ab", "abb", "abcd", "abcdd", "baaac", "xyz", "aab", "b", "ba", "héllo wörld", "aaaaaa", "aXa"}},
	// Escapes.
	{[]string{`\q`, `\8`, `\1`, `\12`, `\C`, `\x{110000}`, `\x{10FFFF}`, `\x{}`, `\x{zz}`, `\xZ`, `\x`, `\x4`, `a\`, `\0`, `\07`, `\077`, `\0777`, `\101`, `\x41`, `\x{41}`, `\x{000041}`, `\a\f\t\n\r\v`, `\_`, `\-`, `\ `, `\é`, `\Q*+\E+`, `\Qab`, `\Q\E*`, `\Qa\Eb*`, `\Q\\E`, `\e`, `\cA`, `\u0041`, `\N{x}`, `\h`, `\R`, `\K`, `\G`, `\X`, `\o{1}`, `[\b]`, `\/`, `\:`, `\@`, `\<`, `\~`, `\%`, "\\\n"},
		[]string{"", "A", "a", "*+", "*+*+", "ab", "abbb", "\x00", "\a\f\t\n\r\v", "_", "-", " ", "é", "\x07", "?7", "\x08", "\\", "/", "\n"}},
	// Syntax errors of every kind.
	{[]string{`[a`, `[a-`, `[z-a]`, `[\x{10}-\x00]`, `(?P<n>a)`, `(?P<>a)`, `(?<>a)`, `(?P<n!>a)`, `(?P<n`, `(?<n`, `(?P>a)`, `(?P<n>`, `(?z)`, `(?`, `(?i`, `(?i-`, `(?--i)`, `(?i-:a)`, `)`, `a)`, `(`, `(a`, `((a)`, `*a`, `a|*`, `(*)`, `(?:*)`, `^*`, `$+`, `\b*`, `(?i)*`, `|*`, `+`, `?`, `{1}`, `a{1001}`, `a{1000}`, `a{1000,}`, `a{0,1001}`, `a{100000000}`, `a{99999999}`, `a{2}{3}`, `(a{2}){501}`, `(a{2}){500}`, `((a{10}){10}){10}`, `((a{10}){10}){11}`, `(a*){1000}`, `(a{0}){1000}{1}`, `(?:a{1000}){0}`, `[]`, `[^]`, `[]]`, `[^]]`, `x{2}{,3}`, `a{2}*`, `a*{2}`, `(?i)(?P<a>x)(?P<a>y)`},
		[]string{"", "a", "aa", "(a)"}},
	// find / findAll.
	{[]string{`[0-9]+`, `\w+`, `[a-z]*`, `\b\w`, `o`, `(?i)O`, `ö`, `.`, `..`, `$`, `^`, `(?m)^\w`, `(?m)\w$`, `a|b|`, `\d*|x`, `é|e`, `[^a]`, `.??`, `\s*`, `,?`},
		[]string{"", "abc 123 def 456", "héllo wörld", "a,b,,c", "x\ny\nz", "ööö", "Ölçü", "a1b22c333", "   ", "日本語テキスト"}},
}

// Patterns at Go's limits, generated here and checked in as text.
func limitPatterns() []string {
	var out []string
	for _, n := range []int{998, 999, 1000, 1001} {
		out = append(out, strings.Repeat("(", n)+"a"+strings.Repeat(")", n))
		out = append(out, strings.Repeat("(?:", n)+"a"+strings.Repeat(")", n))
		out = append(out, strings.Repeat("(a", n)+strings.Repeat(")", n))
		out = append(out, strings.Repeat("(a|", n)+strings.Repeat(")", n))
	}
	out = append(out, strings.Repeat("(", 1001))
	out = append(out, strings.Repeat(")", 3))
	for _, n := range []int{3300, 3354, 3356, 3400} {
		out = append(out, "(?:"+strings.Repeat("ab", n/2)+"){1000}")
	}
	out = append(out, `[\w][\w.-]{0,127}`, `[\p{L}]{0,200}`, `\pL{1000}`, `[\p{L}\p{S}]{1,100}`, `^[\p{L}\p{N}\p{S}\p{P}\p{Z}]{0,256}$`, `(?i)\pL{100}`, `(\pL{10}){100}`, `(?:\pL|\pN){1000}`, `(?:[a-z]{10}){100}`, `.{1000}`, `(?s).{1000}`, `(?:a{1000}|b{1000}){1}`, `((a|b){1000})`)
	out = append(out, strings.Repeat(`\pL`, 500))
	out = append(out, strings.Repeat("a|", 2000)+"b")
	out = append(out, strings.Repeat("x*", 1000))
	return out
}

// Random patterns over Go's syntax (fixed seed): differential coverage of
// the parser's corners, valid and not.
func randomPatterns(n int) []string {
	tokens := []string{"a", "b", "k", "K", "ſ", "é", ".", "^", "$", "|", "(", ")", "(?:", "(?i)", "(?-i)", "(?s)", "(?m)", "(?U)", "(?i:", "(?P<n>", "(?<m>",
		"*", "+", "?", "*?", "+?", "??", "{2}", "{1,3}", "{0,}", "{,2}", "{1000}", "{3,1}", "[", "]", "[^", "-", "[:alpha:]", "[:^word:]", "\\d", "\\w", "\\s", "\\W", "\\b", "\\B",
		"\\pL", "\\p{Greek}", "\\P{Lu}", "\\p{^N}", "\\Q", "\\E", "\\x41", "\\x{212a}", "\\z", "\\A", "\\", "\\q", "\\0", "\\1", "\\.", "\\[", "\\]", "&&", "~~", "--", "{", "}", ",", " ", "0", "9"}
	r := rand.New(rand.NewSource(13))
	var out []string
	for len(out) < n {
		k := 1 + r.Intn(8)
		var b strings.Builder
		for i := 0; i < k; i++ {
			b.WriteString(tokens[r.Intn(len(tokens))])
		}
		out = append(out, b.String())
	}
	return out
}

func runtimeNote() string { return runtime.Version() }

func main() {
	var crd []string
	if f, err := os.ReadFile("crd_patterns.json"); err == nil {
		if err := json.Unmarshal(f, &crd); err != nil {
			panic(err)
		}
	}
	all := append([]group{}, groups...)
	all = append(all, group{crd, []string{"", "a", "abc-def", "ABC", "a.b.c", "10Gi", "1.2.3", "http://example.com/x", "my-name", "é", " ", "a/b", "v1beta1", "0", "-1", "sha256:abc"}})
	all = append(all, group{randomPatterns(1500), []string{"", "ab", "K\u212akſs é\n", "Ab9 [x]-_&~\nZ", "αβΓ 12"}})
	all = append(all, group{limitPatterns(), []string{"", "a", "ab", strings.Repeat("a", 1000), strings.Repeat("ab", 1700), "aé"}})

	out := struct {
		Go      string   `json:"go"`
		Records []record `json:"records"`
	}{Go: runtimeNote()}
	seen := map[string]bool{}
	for _, g := range all {
		for _, p := range g.patterns {
			if seen[p] {
				continue
			}
			seen[p] = true
			rec := record{Pattern: p, Cases: []result{}}
			re, err := regexp.Compile(p)
			if err != nil {
				msg := err.Error()
				rec.Error = &msg
			} else {
				for _, in := range g.inputs {
					loc := re.FindStringIndex(in)
					all := re.FindAllString(in, -1)
					if all == nil {
						all = []string{}
					}
					rec.Cases = append(rec.Cases, result{in, re.MatchString(in), re.FindString(in), loc != nil, all})
				}
			}
			out.Records = append(out.Records, rec)
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
