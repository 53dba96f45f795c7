//! The Kubernetes release whose behaviour is reproduced (reference §9, §10): the CEL
//! environment of rules, cel-go's version, and the texts of validation errors and statuses
//! all follow it.

use std::fmt;
use std::str::FromStr;

use cel::CelGoVersion;

/// A Kubernetes release `1.<minor>` between [`KubeVersion::OLDEST`] and [`KubeVersion::NEWEST`]
/// (only the minor matters: every supported release is 1.x). The default is the newest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    minor: u32,
}

/// The oldest supported minor version.
const OLDEST_MINOR: u32 = 28;
/// The newest supported minor version (the default).
const NEWEST_MINOR: u32 = 37;

impl KubeVersion {
    /// The oldest supported release.
    pub const OLDEST: KubeVersion = KubeVersion {
        minor: OLDEST_MINOR,
    };
    /// The newest supported release, the default.
    pub const NEWEST: KubeVersion = KubeVersion {
        minor: NEWEST_MINOR,
    };

    /// `1.<minor>`, if supported.
    pub const fn new(minor: u32) -> Option<KubeVersion> {
        if OLDEST_MINOR <= minor && minor <= NEWEST_MINOR {
            Some(KubeVersion { minor })
        } else {
            None
        }
    }

    /// The minor version: `35` for 1.35.
    pub const fn minor(self) -> u32 {
        self.minor
    }

    /// Whether this release is `1.<minor>` or newer.
    pub const fn at_least(self, minor: u32) -> bool {
        self.minor >= minor
    }

    /// Whether this release runs cel-go 0.29 (1.37 on) rather than an older cel-go.
    pub const fn has_cel_go_0_29(self) -> bool {
        self.at_least(37)
    }

    /// The cel-go release this Kubernetes release vendors: `github.com/google/cel-go` in the
    /// `go.mod` of `k8s.io/apiserver` at tag `v0.<minor>.0` (and on its release branch):
    /// 1.28 v0.16.0 (v0.16.1 from 1.28.1), 1.29 v0.17.7, 1.30 v0.17.8, 1.31 v0.20.1,
    /// 1.32 v0.22.0, 1.33 v0.23.2, 1.34 to 1.36 v0.26.0, 1.37 (master) v0.29.2. Patch releases
    /// of one cel-go minor behave alike where the engine distinguishes releases.
    pub const fn cel_go(self) -> CelGoVersion {
        match self.minor {
            ..=28 => CelGoVersion::V0_16,
            29 | 30 => CelGoVersion::V0_17,
            31 => CelGoVersion::V0_20,
            32 => CelGoVersion::V0_22,
            33 => CelGoVersion::V0_23,
            34..=36 => CelGoVersion::V0_26,
            _ => CelGoVersion::V0_29,
        }
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion::NEWEST
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

/// Why a version string was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    /// A well-formed `1.NN` outside [`KubeVersion::OLDEST`] to [`KubeVersion::NEWEST`]: the text
    /// given.
    #[error(
        "Kubernetes version {given} is not supported (supported: {} to {})",
        KubeVersion::OLDEST,
        KubeVersion::NEWEST,
        given = .0
    )]
    Unsupported(String),
    /// Not of the form `1.NN`: the text given.
    #[error(
        "invalid Kubernetes version {given:?} (expected 1.NN, e.g. {})",
        KubeVersion::NEWEST,
        given = .0
    )]
    Invalid(String),
}

impl FromStr for KubeVersion {
    type Err = VersionError;

    /// `1.NN` (a leading `v` and a patch part are accepted: `v1.36.2`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split('.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        let patch_ok =
            parts.next().is_none_or(|p| p.parse::<u32>().is_ok()) && parts.next().is_none();
        match (major, minor) {
            (Some(1), Some(m)) if patch_ok => {
                KubeVersion::new(m).ok_or_else(|| VersionError::Unsupported(s.to_string()))
            }
            _ => Err(VersionError::Invalid(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_supported_releases_only() {
        assert_eq!("1.36".parse(), Ok(KubeVersion { minor: 36 }));
        assert_eq!("v1.35.2".parse(), Ok(KubeVersion { minor: 35 }));
        assert_eq!("1.28".parse(), Ok(KubeVersion::OLDEST));
        assert_eq!(
            "1.20".parse::<KubeVersion>().map_err(|e| e.to_string()),
            Err("Kubernetes version 1.20 is not supported (supported: 1.28 to 1.37)".into())
        );
        assert_eq!(
            "1.x".parse::<KubeVersion>().map_err(|e| e.to_string()),
            Err("invalid Kubernetes version \"1.x\" (expected 1.NN, e.g. 1.37)".into())
        );
        assert!("1.38".parse::<KubeVersion>().is_err());
        assert!("2.1".parse::<KubeVersion>().is_err());
        assert!("1.x".parse::<KubeVersion>().is_err());
        assert!("1.35.x".parse::<KubeVersion>().is_err());
        assert!("1.35.1.2".parse::<KubeVersion>().is_err());
    }

    #[test]
    fn the_default_is_the_newest_release() {
        assert_eq!(KubeVersion::default(), KubeVersion::NEWEST);
        assert_eq!(KubeVersion::default().to_string(), "1.37");
        assert_eq!(KubeVersion::new(27), None);
        assert_eq!(KubeVersion::new(38), None);
        let v = KubeVersion::new(35).expect("supported");
        assert!(v.at_least(34) && v.at_least(35) && !v.at_least(36));
        assert!(!v.has_cel_go_0_29() && KubeVersion::NEWEST.has_cel_go_0_29());
        assert_eq!(v.cel_go(), CelGoVersion::V0_26);
        assert_eq!(KubeVersion::OLDEST.cel_go(), CelGoVersion::V0_16);
        assert_eq!(KubeVersion::NEWEST.cel_go(), CelGoVersion::V0_29);
    }
}
