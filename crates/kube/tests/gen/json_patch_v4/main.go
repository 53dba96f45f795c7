// Command json_patch_v4 applies the patches of cases.json with gopkg.in/evanphx/json-patch.v4
// (the version kube-apiserver applies MutatingAdmissionPolicy JSON patches with) and prints
// each case with its outcome: the patched document, or the error text and whether it is
// ErrTestFailed.
//
// Build it inside a checkout of kubectl-validate (which vendors json-patch.v4 v4.13.0) with
// `go build -mod=vendor`; run it with cases.json on stdin.
package main

import (
	"encoding/json"
	"errors"
	"os"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

type testCase struct {
	Doc        json.RawMessage `json:"doc"`
	Patch      json.RawMessage `json:"patch"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	TestFailed bool            `json:"testFailed,omitempty"`
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	for i := range cases {
		c := &cases[i]
		patch, err := jsonpatch.DecodePatch(c.Patch)
		if err != nil {
			panic(err)
		}
		out, err := patch.Apply(c.Doc)
		if err != nil {
			c.Error = err.Error()
			c.TestFailed = errors.Is(err, jsonpatch.ErrTestFailed)
			continue
		}
		c.Result = out
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(cases); err != nil {
		panic(err)
	}
}
