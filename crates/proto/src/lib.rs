//! CRD schemas from `.proto` files with `+kubebuilder` markers.
