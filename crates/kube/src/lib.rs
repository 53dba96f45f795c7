//! Kubernetes custom-resource validation with CEL, as kube-apiserver does it.

pub mod library;
