// Command typechecking asks the real ValidatingAdmissionPolicy type checker
// (k8s.io/apiserver/pkg/admission/plugin/policy/validating, TypeChecker.Check) for the warnings
// of the TestTypeCheck records of crates/kube/tests/data/admission/typechecking.json and prints
// them as JSON, by record name. Its RESTMapper and SchemaResolver are those of the Go test's
// buildTypeChecker: v1 Pod and apps/v1 Deployment, every kind resolving to the record's schema
// (none: ErrSchemaNotFound).
//
// It builds with -mod=vendor inside a checkout of kubernetes-sigs/kubectl-validate (which vendors
// k8s.io/apiserver v0.35.0): copy this directory to cmd/typechecking there, then
//
//	go build -o typechecking ./cmd/typechecking && ./typechecking typechecking.json
//
// Tests never run it; its output is checked in as the records' `warnings` (or `panic`: Kubernetes
// 1.35's Check dereferences a nil type for a schema without a CEL type).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

type record struct {
	Provenance struct {
		Test string `json:"test"`
		Case string `json:"case"`
	} `json:"provenance"`
	Policy *v1.ValidatingAdmissionPolicy `json:"policy"`
	Schema *spec.Schema                  `json:"schema"`
}

type data struct {
	Records []record `json:"records"`
}

type fixedSchema struct{ schema *spec.Schema }

func (r fixedSchema) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	if r.schema == nil {
		return nil, fmt.Errorf("cannot resolve for %v: %w", gvk, resolver.ErrSchemaNotFound)
	}
	return r.schema, nil
}

// check returns the warnings of a record, or the text of the panic Check ends in.
func check(r record, mapper meta.RESTMapper) (result any) {
	defer func() {
		if p := recover(); p != nil {
			result = fmt.Sprintf("panic: %v", p)
		}
	}()
	checker := &validating.TypeChecker{SchemaResolver: fixedSchema{r.Schema}, RestMapper: mapper}
	w := checker.Check(r.Policy)
	if w == nil {
		w = []v1.ExpressionWarning{}
	}
	return w
}

func main() {
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var d data
	if err := json.Unmarshal(raw, &d); err != nil {
		panic(err)
	}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, meta.RESTScopeRoot)
	mapper.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeRoot)
	out := map[string]any{}
	for _, r := range d.Records {
		if r.Provenance.Test != "TestTypeCheck" {
			continue
		}
		out[r.Provenance.Case] = check(r, mapper)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
