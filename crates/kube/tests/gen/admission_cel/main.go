// Command admission_cel asks the real admission CEL code (k8s.io/apiserver
// pkg/admission/plugin/cel: NewConditionCompiler, NewCompositedCompiler, ForInput) for the exact
// outcomes of the records of crates/kube/tests/data/admission/condition.json and
// composition.json, and prints them as JSON by record name (`<test>/<case>`): each compilation
// error (TestCompile records), or each result's value or error text, the remaining budget and
// the error of the whole list (the other records). Records without an expression to evaluate
// (TestCompilationErrors, TestCompilerIsolation) are left out.
//
// Each record is run as its Go test runs it (condition_test.go, composition_test.go): the base
// environment of the record's compatibility version (the default one when it names none),
// extended with the record's per-call limit for TestCondition records; objects and params as
// unstructured objects decoded from the record's JSON (integers stay integers); the namespace
// as a corev1.Namespace; the fake authorizer of condition_test.go (fakeAuthorizer,
// newAuthzAllowMatch, denyAll, errorAll) rebuilt from the record's description.
//
// It builds with -mod=vendor inside a checkout of kubernetes-sigs/kubectl-validate (which vendors
// k8s.io/apiserver v0.35.0): copy this directory to cmd/admission_cel there, then
//
//	go build -o admission_cel ./cmd/admission_cel
//	./admission_cel condition.json composition.json > cel.server.json
//
// Tests never run it; its output is checked in as tests/data/admission/cel.server.json.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"

	celgo "github.com/google/cel-go/cel"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
)

type gvk struct{ Group, Version, Kind string }
type gvr struct{ Group, Version, Resource string }

type attributes struct {
	Kind        gvk             `json:"kind"`
	Resource    gvr             `json:"resource"`
	Subresource string          `json:"subresource"`
	Namespace   string          `json:"namespace"`
	Name        string          `json:"name"`
	Operation   string          `json:"operation"`
	Object      json.RawMessage `json:"object"`
	OldObject   json.RawMessage `json:"oldObject"`
}

type authz struct {
	Kind     string         `json:"kind"`
	Decision string         `json:"decision"`
	Reason   string         `json:"reason"`
	Error    string         `json:"error"`
	Match    map[string]any `json:"match"`
}

type variable struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

type record struct {
	Provenance struct {
		Test string `json:"test"`
		Case string `json:"case"`
	} `json:"provenance"`
	Mode                 string            `json:"mode"`
	CompatibilityVersion string            `json:"compatibilityVersion"`
	EnvType              string            `json:"envType"`
	HasParams            bool              `json:"hasParams"`
	HasAuthorizer        bool              `json:"hasAuthorizer"`
	Attributes           attributes        `json:"attributes"`
	Params               json.RawMessage   `json:"params"`
	NamespaceObject      *corev1.Namespace `json:"namespaceObject"`
	Authorizer           *authz            `json:"authorizer"`
	PerCallLimit         uint64            `json:"perCallLimit"`
	Budget               int64             `json:"budget"`
	Expressions          []string          `json:"expressions"`
	Expression           string            `json:"expression"`
	Variables            []variable        `json:"variables"`
}

type condition struct{ expression string }

func (c *condition) GetExpression() string      { return c.expression }
func (c *condition) ReturnTypes() []*celgo.Type { return []*celgo.Type{celgo.BoolType} }

type namedVariable struct{ name, expression string }

func (v *namedVariable) GetExpression() string      { return v.expression }
func (v *namedVariable) ReturnTypes() []*celgo.Type { return []*celgo.Type{celgo.AnyType} }
func (v *namedVariable) GetName() string            { return v.name }

// fakeAuthorizer is condition_test.go's: the decision of `match` for a request equal to its
// record, the default decision for any other.
type fakeAuthorizer struct {
	match    *authorizer.AttributesRecord
	matched  authorizer.Decision
	decision authorizer.Decision
	reason   string
	err      error
}

func (f fakeAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if f.match != nil {
		if other, ok := a.(*authorizer.AttributesRecord); ok && reflect.DeepEqual(*f.match, *other) {
			return f.matched, "", nil
		}
	}
	return f.decision, f.reason, f.err
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func buildAuthorizer(a *authz) (authorizer.Authorizer, error) {
	switch a.Kind {
	case "denyAll":
		return fakeAuthorizer{decision: authorizer.DecisionDeny, reason: a.Reason}, nil
	case "errorAll":
		return fakeAuthorizer{decision: authorizer.DecisionNoOpinion, err: errors.New(a.Error)}, nil
	case "allowMatch":
	default:
		return nil, fmt.Errorf("authorizer kind %q", a.Kind)
	}
	m := a.Match
	r := authorizer.AttributesRecord{
		Verb: str(m, "Verb"), Namespace: str(m, "Namespace"), APIGroup: str(m, "APIGroup"),
		APIVersion: str(m, "APIVersion"), Resource: str(m, "Resource"),
		Subresource: str(m, "Subresource"), Name: str(m, "Name"), Path: str(m, "Path"),
	}
	r.ResourceRequest, _ = m["ResourceRequest"].(bool)
	if u, ok := m["User"].(map[string]any); ok {
		info := &user.DefaultInfo{Name: str(u, "Name")}
		for _, g := range u["Groups"].([]any) {
			info.Groups = append(info.Groups, g.(string))
		}
		r.User = info
	}
	for _, f := range asList(m["FieldSelectorRequirements"]) {
		r.FieldSelectorRequirements = append(r.FieldSelectorRequirements, fields.Requirement{
			Operator: selection.Operator(str(f, "Operator")), Field: str(f, "Field"), Value: str(f, "Value")})
	}
	for _, l := range asList(m["LabelSelectorRequirements"]) {
		var values []string
		for _, v := range l["strValues"].([]any) {
			values = append(values, v.(string))
		}
		req, err := labels.NewRequirement(str(l, "key"), selection.Operator(str(l, "operator")), values)
		if err != nil {
			return nil, err
		}
		r.LabelSelectorRequirements = append(r.LabelSelectorRequirements, *req)
	}
	if s := str(m, "FieldSelectorParsingErr"); s != "" {
		r.FieldSelectorParsingErr = errors.New(s)
	}
	if s := str(m, "LabelSelectorParsingErr"); s != "" {
		r.LabelSelectorParsingErr = errors.New(s)
	}
	return fakeAuthorizer{match: &r, matched: authorizer.DecisionAllow, decision: authorizer.DecisionDeny}, nil
}

func asList(v any) []map[string]any {
	var out []map[string]any
	for _, e := range asSlice(v) {
		out = append(out, e.(map[string]any))
	}
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// object decodes a JSON object as an unstructured object (nil for null), integers as int64.
func object(raw json.RawMessage) (runtime.Object, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	m := map[string]any{}
	if err := utiljson.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

func versionedAttributes(a attributes) (*admission.VersionedAttributes, error) {
	obj, err := object(a.Object)
	if err != nil {
		return nil, err
	}
	old, err := object(a.OldObject)
	if err != nil {
		return nil, err
	}
	var options runtime.Object = &metav1.CreateOptions{}
	if a.Operation == "UPDATE" {
		options = &metav1.UpdateOptions{}
	}
	kind := schema.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind}
	resource := schema.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version, Resource: a.Resource.Resource}
	attr := admission.NewAttributesRecord(obj, old, kind, a.Namespace, a.Name, resource, a.Subresource,
		admission.Operation(a.Operation), options, false, nil)
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return admission.NewVersionedAttributes(attr, attr.GetKind(), admission.NewObjectInterfacesFromScheme(scheme))
}

func envSet(r record) (*environment.EnvSet, environment.Type, error) {
	compat := environment.DefaultCompatibilityVersion()
	if r.CompatibilityVersion != "" {
		compat = version.MustParse(r.CompatibilityVersion)
	}
	envType := environment.NewExpressions
	if r.EnvType != "" {
		envType = environment.Type(r.EnvType)
	}
	env := environment.MustBaseEnvSet(compat)
	if r.Mode != "condition" {
		return env, envType, nil
	}
	limit := r.PerCallLimit
	if limit == 0 {
		limit = celconfig.PerCallLimit
	}
	env, err := env.Extend(environment.VersionedOptions{
		IntroducedVersion: compat,
		ProgramOptions:    []celgo.ProgramOption{celgo.CostLimit(limit)},
	})
	return env, envType, err
}

type result struct {
	Value any    `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
}

type outcome struct {
	CompileErrors []*string `json:"compileErrors,omitempty"`
	Results       []result  `json:"results,omitempty"`
	Remaining     *int64    `json:"remaining,omitempty"`
	Error         string    `json:"error,omitempty"`
}

func run(r record) (*outcome, error) {
	environment.DisableBaseEnvSetCachingForTests()
	env, envType, err := envSet(r)
	if err != nil {
		return nil, err
	}
	decls := plugincel.OptionalVariableDeclarations{HasParams: r.HasParams, HasAuthorizer: r.HasAuthorizer}
	var evaluator plugincel.ConditionEvaluator
	var ctx context.Context = context.Background()
	switch r.Mode {
	case "compile", "condition", "budget":
		var accessors []plugincel.ExpressionAccessor
		for _, e := range r.Expressions {
			accessors = append(accessors, &condition{e})
		}
		compiler := plugincel.NewCompiler(env)
		if r.Mode == "compile" {
			out := &outcome{CompileErrors: []*string{}}
			for _, a := range accessors {
				var text *string
				if res := compiler.CompileCELExpression(a, decls, envType); res.Error != nil {
					s := res.Error.Error()
					text = &s
				}
				out.CompileErrors = append(out.CompileErrors, text)
			}
			return out, nil
		}
		evaluator = plugincel.NewConditionCompiler(env).CompileCondition(accessors, decls, envType)
	case "composited":
		compiler, err := plugincel.NewCompositedCompiler(env)
		if err != nil {
			return nil, err
		}
		var vars []plugincel.NamedExpressionAccessor
		for _, v := range r.Variables {
			vars = append(vars, &namedVariable{v.Name, v.Expression})
		}
		compiler.CompileAndStoreVariables(vars, decls, envType)
		evaluator = compiler.CompileCondition([]plugincel.ExpressionAccessor{&condition{r.Expression}}, decls, envType)
	default:
		return nil, nil
	}
	attr, err := versionedAttributes(r.Attributes)
	if err != nil {
		return nil, err
	}
	params, err := object(r.Params)
	if err != nil {
		return nil, err
	}
	optional := plugincel.OptionalVariableBindings{VersionedParams: params}
	if r.Authorizer != nil {
		if optional.Authorizer, err = buildAuthorizer(r.Authorizer); err != nil {
			return nil, err
		}
	}
	budget := r.Budget
	if budget == 0 {
		budget = celconfig.RuntimeCELCostBudget
	}
	request := plugincel.CreateAdmissionRequest(attr.Attributes, metav1.GroupVersionResource(attr.GetResource()), metav1.GroupVersionKind(attr.VersionedKind))
	results, remaining, err := evaluator.ForInput(ctx, attr, request, optional, plugincel.CreateNamespaceObject(r.NamespaceObject), budget)
	out := &outcome{Remaining: &remaining, Results: []result{}}
	if err != nil {
		out.Error = err.Error()
	}
	for _, res := range results {
		if res.Error != nil {
			out.Results = append(out.Results, result{Error: res.Error.Error()})
		} else {
			out.Results = append(out.Results, result{Value: res.EvalResult.Value()})
		}
	}
	return out, nil
}

func main() {
	out := map[string]*outcome{}
	for _, file := range os.Args[1:] {
		text, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var data struct{ Records []record }
		if err := json.Unmarshal(text, &data); err != nil {
			fmt.Fprintln(os.Stderr, file, err)
			os.Exit(1)
		}
		for _, r := range data.Records {
			name := r.Provenance.Test + "/" + r.Provenance.Case
			o, err := run(r)
			if err != nil {
				fmt.Fprintln(os.Stderr, name, err)
				os.Exit(1)
			}
			if o != nil {
				out[name] = o
			}
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
