// Command builtin_decode decodes documents strictly into Kubernetes' typed objects, as
// kube-apiserver's JSON codec does for built-in kinds (k8s.io/apimachinery
// runtime/serializer/json with Strict, over client-go's scheme), and prints one JSON line per
// document: {"file", "doc", "error"} (error empty when decoding succeeded, "not registered" when
// the scheme has no such kind).
//
// Built by hand inside a checkout of kubectl-validate (it vendors k8s.io/* v0.35.0):
//
//	cp -r <kubectl-validate checkout> /tmp/kv && mkdir -p /tmp/kv/cmd/builtin_decode
//	cp main.go /tmp/kv/cmd/builtin_decode/ && cd /tmp/kv
//	GOFLAGS=-mod=vendor GOPROXY=off go build -o /tmp/builtin_decode ./cmd/builtin_decode
//	/tmp/builtin_decode FILE... > ../../data/builtin_decode.jsonl
//
// Each file is a YAML stream; documents are converted to JSON as kubectl sends them.
//
// With -types, it prints instead the named Go types of struct fields that the OpenAPI
// definitions do not name (`v1.Protocol`, `v1.ResourceList`, `[]v1.Capability`), as a JSON object
// {definition: {json field: Go type}} for crates/kube/data/go_types.json.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	serjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

type result struct {
	File  string `json:"file"`
	Doc   int    `json:"doc"`
	Error string `json:"error"`
}

// definitionName is the OpenAPI definition name of a Go type (k8s.io/api/core/v1.Pod ->
// io.k8s.api.core.v1.Pod).
func definitionName(t reflect.Type) string {
	parts := strings.Split(t.PkgPath(), "/")
	if len(parts) > 0 {
		domain := strings.Split(parts[0], ".")
		for i, j := 0, len(domain)-1; i < j; i, j = i+1, j-1 {
			domain[i], domain[j] = domain[j], domain[i]
		}
		parts[0] = strings.Join(domain, ".")
	}
	return strings.Join(parts, ".") + "." + t.Name()
}

// special types decode with their own unmarshallers; kcel knows them.
var special = map[string]bool{
	"intstr.IntOrString": true, "resource.Quantity": true, "v1.Time": true, "v1.MicroTime": true,
	"runtime.RawExtension": true, "v1.FieldsV1": true,
}

func walkTypes(t reflect.Type, out map[string]map[string]string, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	def := definitionName(t)
	var fields func(s reflect.Type)
	fields = func(s reflect.Type) {
		for i := 0; i < s.NumField(); i++ {
			f := s.Field(i)
			tag := f.Tag.Get("json")
			name := strings.Split(tag, ",")[0]
			if name == "-" {
				continue
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && (name == "" || strings.Contains(tag, "inline")) && ft.Kind() == reflect.Struct {
				fields(ft)
				continue
			}
			if name == "" {
				name = f.Name
			}
			walkTypes(ft, out, seen)
			if special[ft.String()] || ft.Kind() == reflect.Struct {
				continue
			}
			// Only types whose name the definitions cannot give: a named type, or a container
			// of named non-struct elements.
			e := ft
			for e.Kind() == reflect.Slice || e.Kind() == reflect.Map || e.Kind() == reflect.Pointer {
				e = e.Elem()
			}
			if ft.Name() != "" && ft.PkgPath() == "" {
				continue // int32, string, ...
			}
			if ft.Name() == "" && (e.Kind() == reflect.Struct || e.PkgPath() == "" || special[e.String()]) {
				continue
			}
			if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Uint8 {
				continue
			}
			if out[def] == nil {
				out[def] = map[string]string{}
			}
			out[def][name] = ft.String()
		}
	}
	fields(t)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-types" {
		out := map[string]map[string]string{}
		seen := map[reflect.Type]bool{}
		for _, t := range scheme.Scheme.AllKnownTypes() {
			walkTypes(t, out, seen)
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", " ")
		_ = enc.Encode(out)
		return
	}
	s := serjson.NewSerializerWithOptions(serjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		serjson.SerializerOptions{Yaml: false, Pretty: false, Strict: true})
	out := json.NewEncoder(os.Stdout)
	for _, f := range os.Args[1:] {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for i := 0; ; i++ {
			doc, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			res := result{File: f, Doc: i}
			body, err := yaml.YAMLToJSON(doc)
			switch {
			case err != nil:
				res.Error = "yaml: " + err.Error()
			case string(bytes.TrimSpace(body)) == "null":
				res.Error = "empty"
			default:
				gvk, kerr := serjson.DefaultMetaFactory.Interpret(body)
				if kerr != nil {
					res.Error = "kind: " + kerr.Error()
					break
				}
				if !scheme.Scheme.Recognizes(*gvk) {
					res.Error = "not registered"
					break
				}
				_, _, derr := s.Decode(body, nil, nil)
				if derr != nil {
					res.Error = derr.Error()
				}
			}
			_ = out.Encode(res)
		}
	}
}
