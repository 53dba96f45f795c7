// Command smd_merge runs the typed conversions and the merge that MutatingAdmissionPolicy's
// ApplyConfiguration uses (k8s.io/apiserver `patch.ApplyStructuredMergeDiff`: the patch and the
// live object converted by a TypeConverter built from an OpenAPI schema, the live object with
// duplicates allowed, then `TypedValue.Merge`) on the cases of cases.json, with the real
// sigs.k8s.io/structured-merge-diff/v6 and k8s.io/apimachinery managedfields, and prints each
// case with its outcome: the first error (its stage and text) or the merged object.
//
// Build it inside a checkout of kubectl-validate (which vendors both) with
// `go build -mod=vendor`; run it with cases.json on stdin.
package main

import (
	"encoding/json"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

type input struct {
	Schema json.RawMessage `json:"schema"`
	Cases  []*testCase     `json:"cases"`
}

type testCase struct {
	Name   string         `json:"name"`
	Object map[string]any `json:"object"`
	Patch  map[string]any `json:"patch"`
	Stage  string         `json:"stage,omitempty"`
	Error  string         `json:"error,omitempty"`
	Result map[string]any `json:"result,omitempty"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		panic(err)
	}
	var schema spec.Schema
	if err := json.Unmarshal(in.Schema, &schema); err != nil {
		panic(err)
	}
	tc, err := managedfields.NewTypeConverter(map[string]*spec.Schema{"com.example.v1.Thing": &schema}, false)
	if err != nil {
		panic(err)
	}
	for _, c := range in.Cases {
		patch, err := tc.ObjectToTyped(&unstructured.Unstructured{Object: c.Patch})
		if err != nil {
			c.Stage, c.Error = "patch", err.Error()
			continue
		}
		live, err := tc.ObjectToTyped(&unstructured.Unstructured{Object: c.Object}, typed.AllowDuplicates)
		if err != nil {
			c.Stage, c.Error = "live", err.Error()
			continue
		}
		merged, err := live.Merge(patch)
		if err != nil {
			c.Stage, c.Error = "merge", err.Error()
			continue
		}
		out, err := tc.TypedToObject(merged)
		if err != nil {
			c.Stage, c.Error = "output", err.Error()
			continue
		}
		c.Result = out.(*unstructured.Unstructured).Object
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		panic(err)
	}
}
