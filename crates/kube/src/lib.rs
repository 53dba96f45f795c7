//! Kubernetes custom-resource validation with CEL, as kube-apiserver does it.

pub mod gofmt;
pub mod library;
pub mod yaml;
