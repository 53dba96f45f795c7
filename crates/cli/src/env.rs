//! The environments the CLI compiles in: [`cel::library::full`], the
//! conformance suite's environment, and Kubernetes' rule environment.

use cel::EnvBuilder;

/// A builder with the full library set; callers add declarations.
pub fn full() -> EnvBuilder {
    cel::library::full()
}

/// A builder with the libraries of Kubernetes' validation rules in release `version`, as stored
/// rules run (every library of the release; `kcel_kube::rules::env`); callers add declarations.
pub fn kube(version: kcel_kube::KubeVersion) -> EnvBuilder {
    kcel_kube::rules::env::EnvSpec::new(version, kcel_kube::rules::env::EnvKind::StoredExpressions)
        .builder()
}
