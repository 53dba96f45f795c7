//! Ports of Go code whose exact behaviour Kubernetes' answers depend on, with Go's error texts.
//! The engine's own Go ports (regexp dialect, `net/netip`, `strconv`/`fmt` forms) are
//! [`cel::go`]; these are the ones only the Kubernetes layer needs:
//!
//! * [`fmt`]: `strconv`/`fmt` forms of floats and strings (re-exported from [`cel::go::fmt`]) and
//!   documents printed with `encoding/json`'s floats.
//! * [`quantity`]: apimachinery's `resource.Quantity` (`k8s.io/apimachinery/pkg/api/resource`).
//! * [`time`]: `time.Parse(time.RFC3339, …)` errors, as `metav1.Time` returns them.
//! * `url`: the parts of `net/url` that the URL library and the `uri` format use.

pub mod fmt;
pub mod quantity;
pub mod time;
pub(crate) mod url;
