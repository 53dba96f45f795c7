//! cel-go's `CostEstimate` and `SizeEstimate`: {min, max} ranges with
//! saturating `u64` arithmetic, and cost factors applied in IEEE `f64` with a
//! ceiling (`MultiplyByCostFactor`). The f64 rounding is part of the oracle:
//! `u64::MAX × 0.1` is 1 844 674 407 370 955 264, not …161.

use crate::library::ext::cost::{Range, multiply_by_cost_factor};

/// An estimated cost range (cel-go's `checker.CostEstimate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CostEstimate {
    /// The least cost.
    pub min: u64,
    /// The greatest cost (`u64::MAX`: unbounded).
    pub max: u64,
}

/// An estimated size range of a string (code points), bytes (length), list or
/// map (entries), as CEL's `size()` counts (cel-go's `checker.SizeEstimate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SizeEstimate {
    /// The least size.
    pub min: u64,
    /// The greatest size (`u64::MAX`: unbounded).
    pub max: u64,
}

impl CostEstimate {
    /// `{0, u64::MAX}`: a cost nothing is known about.
    pub const UNKNOWN: CostEstimate = CostEstimate {
        min: 0,
        max: u64::MAX,
    };

    /// The range `min..=max`.
    pub const fn new(min: u64, max: u64) -> Self {
        CostEstimate { min, max }
    }

    /// `{n, n}`.
    pub const fn fixed(n: u64) -> Self {
        CostEstimate { min: n, max: n }
    }

    /// Bound-wise sum, saturating at `u64::MAX`.
    #[must_use]
    pub fn saturating_add(self, o: CostEstimate) -> Self {
        CostEstimate {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }

    /// Bound-wise product, saturating at `u64::MAX`.
    #[must_use]
    pub fn multiply(self, o: CostEstimate) -> Self {
        CostEstimate {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    /// Each bound × `factor`, rounded up, in f64 as cel-go computes it.
    #[must_use]
    pub fn multiply_by_cost_factor(self, factor: f64) -> Self {
        CostEstimate {
            min: multiply_by_cost_factor(self.min, factor),
            max: multiply_by_cost_factor(self.max, factor),
        }
    }

    /// The smallest range covering both.
    #[must_use]
    pub fn union(self, o: CostEstimate) -> Self {
        CostEstimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

impl SizeEstimate {
    /// `{0, u64::MAX}`: a size nothing is known about.
    pub const UNKNOWN: SizeEstimate = SizeEstimate {
        min: 0,
        max: u64::MAX,
    };

    /// The range `min..=max`.
    pub const fn new(min: u64, max: u64) -> Self {
        SizeEstimate { min, max }
    }

    /// `{n, n}`.
    pub const fn fixed(n: u64) -> Self {
        SizeEstimate { min: n, max: n }
    }

    /// Bound-wise sum, saturating at `u64::MAX`.
    #[must_use]
    pub fn saturating_add(self, o: SizeEstimate) -> Self {
        SizeEstimate {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }

    /// Bound-wise product, saturating at `u64::MAX`.
    #[must_use]
    pub fn multiply(self, o: SizeEstimate) -> Self {
        SizeEstimate {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    /// Each bound × `factor`, rounded up (cel-go's `MultiplyByCostFactor`).
    #[must_use]
    pub fn multiply_by_cost_factor(self, factor: f64) -> CostEstimate {
        CostEstimate {
            min: multiply_by_cost_factor(self.min, factor),
            max: multiply_by_cost_factor(self.max, factor),
        }
    }

    /// Bound-wise product with a cost (cel-go's `MultiplyByCost`), saturating.
    #[must_use]
    pub fn multiply_by_cost(self, cost: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_mul(cost.min),
            max: self.max.saturating_mul(cost.max),
        }
    }

    /// The smallest range covering both.
    #[must_use]
    pub fn union(self, o: SizeEstimate) -> Self {
        SizeEstimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

impl From<Range> for CostEstimate {
    fn from(r: Range) -> Self {
        CostEstimate::new(r.min, r.max)
    }
}

impl From<Range> for SizeEstimate {
    fn from(r: Range) -> Self {
        SizeEstimate::new(r.min, r.max)
    }
}

impl From<SizeEstimate> for Range {
    fn from(s: SizeEstimate) -> Self {
        Range {
            min: s.min,
            max: s.max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturating_arithmetic() {
        let big = CostEstimate::new(u64::MAX - 1, u64::MAX);
        assert_eq!(
            big.saturating_add(CostEstimate::fixed(5)),
            CostEstimate::fixed(u64::MAX)
        );
        assert_eq!(
            CostEstimate::new(2, 1 << 40).multiply(CostEstimate::new(3, 1 << 40)),
            CostEstimate::new(6, u64::MAX)
        );
        assert_eq!(
            SizeEstimate::new(1, 10).union(SizeEstimate::new(0, 4)),
            SizeEstimate::new(0, 10)
        );
        assert_eq!(
            SizeEstimate::new(2, u64::MAX).multiply_by_cost(CostEstimate::new(3, 2)),
            CostEstimate::new(6, u64::MAX)
        );
    }

    #[test]
    fn cost_factor_uses_f64_rounding() {
        assert_eq!(
            SizeEstimate::UNKNOWN.multiply_by_cost_factor(0.1),
            CostEstimate::new(0, 1_844_674_407_370_955_264)
        );
        // 2^53 + 1 is not representable: × 1.0 rounds to 2^53.
        let n = (1u64 << 53) + 1;
        assert_eq!(
            SizeEstimate::fixed(n).multiply_by_cost_factor(1.0),
            CostEstimate::fixed(1 << 53)
        );
        assert_eq!(
            SizeEstimate::UNKNOWN.multiply_by_cost_factor(1.0).max,
            u64::MAX
        );
        // ceil(3 × 0.1) = ceil(0.30000000000000004) = 1; ceil(13 × 0.1) = 2.
        assert_eq!(
            SizeEstimate::new(3, 13).multiply_by_cost_factor(0.1),
            CostEstimate::new(1, 2)
        );
        assert_eq!(
            SizeEstimate::new(0, 9).multiply_by_cost_factor(0.25),
            CostEstimate::new(0, 3)
        );
    }
}
