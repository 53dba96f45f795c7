//! Kubernetes custom-resource validation with CEL, as kube-apiserver does it.

pub mod crd;
pub mod decl;
pub mod escaping;
pub mod gofmt;
pub mod library;
pub mod load;
pub mod schema_props;
pub mod structural;
pub mod values;
pub mod yaml;
