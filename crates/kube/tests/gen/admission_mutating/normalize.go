// Command normalize passes the objects of the transcribed MutatingAdmissionPolicy tables
// through their Go types (k8s.io/api v0.35.0: apps/v1 Deployment, core/v1 ConfigMap, Pod and
// Namespace), so the data holds each object as the typed code encodes it (zero-valued
// non-omitempty fields such as `creationTimestamp: null`, `strategy: {}`, `containers: null`).
//
// Build it inside a checkout of kubectl-validate (which vendors k8s.io/api) with
// `go run -mod=vendor`, reading transcribe.py's output on stdin.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func through(v any, target any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(target); err != nil {
		panic(fmt.Sprintf("%s: %v", b, err))
	}
	out, err := json.Marshal(target)
	if err != nil {
		panic(err)
	}
	var back any
	if err := json.Unmarshal(out, &back); err != nil {
		panic(err)
	}
	return back
}

// typed is a new value of the Go type of kind.
func typed(kind any) any {
	switch kind {
	case "Deployment":
		return &appsv1.Deployment{}
	case "ConfigMap":
		return &corev1.ConfigMap{}
	case "Pod":
		return &corev1.Pod{}
	}
	panic(fmt.Sprintf("no Go type for kind %v", kind))
}

func main() {
	var data map[string][]map[string]any
	if err := json.NewDecoder(os.Stdin).Decode(&data); err != nil {
		panic(err)
	}
	for _, cases := range data {
		for _, c := range cases {
			kind, _ := c["kind"].(map[string]any)
			for _, k := range []string{"object", "oldObject", "expectedObject"} {
				if v, ok := c[k]; ok {
					c[k] = through(v, typed(kind["kind"]))
				}
			}
			if ps, ok := c["paramObjects"].([]any); ok {
				for i, p := range ps {
					ps[i] = through(p, &corev1.ConfigMap{})
				}
			}
			if v, ok := c["params"]; ok {
				c["params"] = through(v, &corev1.ConfigMap{})
			}
			if v, ok := c["namespaceObject"]; ok {
				c["namespaceObject"] = through(v, &corev1.Namespace{})
			}
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(data); err != nil {
		panic(err)
	}
}
