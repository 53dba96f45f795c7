//! `kcel version` (and `kcel --version`): kcel's version and the Kubernetes releases it
//! reproduces.

use std::process::ExitCode;

use kcel_kube::KubeVersion;

/// `kcel 0.1.0` and, on a second line, the Kubernetes releases `--kube-version` accepts.
pub fn text() -> String {
    format!(
        "{}\nKubernetes {} to {} (default {})",
        env!("CARGO_PKG_VERSION"),
        KubeVersion::OLDEST,
        KubeVersion::NEWEST,
        KubeVersion::default()
    )
}

pub fn run() -> ExitCode {
    println!("kcel {}", text());
    ExitCode::SUCCESS
}
