//! Admission policies offline: ValidatingAdmissionPolicy and MutatingAdmissionPolicy as
//! kube-apiserver's admission plugins run them (`k8s.io/apiserver/pkg/admission/plugin/policy`).

pub mod mutating;
