//! Kubernetes versions whose output texts differ (reference §10).

use std::fmt;
use std::str::FromStr;

/// A Kubernetes minor version (`1.35`). Only the minor matters: every supported release is 1.x.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub minor: u32,
}

impl KubeVersion {
    /// The oldest version whose texts are reproduced.
    pub const OLDEST: KubeVersion = KubeVersion { minor: 28 };
    /// The newest version whose texts are reproduced.
    pub const NEWEST: KubeVersion = KubeVersion { minor: 37 };
    /// The default: 1.35, the release the verified fixtures come from.
    pub const DEFAULT: KubeVersion = KubeVersion { minor: 35 };

    pub const fn new(minor: u32) -> KubeVersion {
        KubeVersion { minor }
    }

    /// Whether this version is at least `1.<minor>`.
    pub fn at_least(self, minor: u32) -> bool {
        self.minor >= minor
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion::DEFAULT
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

impl FromStr for KubeVersion {
    type Err = String;

    /// Accepts `1.35`, `v1.35`, `1.35.2`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split('.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        match (major, minor) {
            (Some(1), Some(minor))
                if (KubeVersion::OLDEST.minor..=KubeVersion::NEWEST.minor).contains(&minor) =>
            {
                Ok(KubeVersion { minor })
            }
            _ => Err(format!(
                "unsupported Kubernetes version {s:?}: expected 1.{}..1.{}",
                KubeVersion::OLDEST.minor,
                KubeVersion::NEWEST.minor
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!("1.33".parse(), Ok(KubeVersion::new(33)));
        assert_eq!("v1.37.1".parse(), Ok(KubeVersion::new(37)));
        assert!("2.1".parse::<KubeVersion>().is_err());
        assert!("1.99".parse::<KubeVersion>().is_err());
    }
}
