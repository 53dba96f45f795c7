//! Timestamp and duration accessors (`getFullYear`, `getHours`, ... with and
//! without a time zone argument), with cel-go's zero- and one-based fields.

use std::sync::Arc;

use crate::cel_go::CelGoVersion;
use crate::env::EnvBuilder;
use crate::error::{EvalError, EvalResult};
use crate::functions::FnImpl;
use crate::value::{Civil, Value};

/// A calendar field of a timestamp.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Field {
    FullYear,
    Month,
    DayOfYear,
    /// `getDayOfMonth`: zero-based.
    DayOfMonth,
    /// `getDate`: one-based.
    Date,
    DayOfWeek,
    Hours,
    Minutes,
    Seconds,
    Milliseconds,
}

impl Field {
    fn of(self, c: &Civil) -> i64 {
        match self {
            Field::FullYear => c.year,
            Field::Month => c.month - 1,
            Field::DayOfYear => c.day_of_year - 1,
            Field::DayOfMonth => c.day - 1,
            Field::Date => c.day,
            Field::DayOfWeek => c.day_of_week,
            Field::Hours => c.hour,
            Field::Minutes => c.minute,
            Field::Seconds => c.second,
            Field::Milliseconds => c.nanos / 1_000_000,
        }
    }
}

/// The accessor `field` applied to `args` (receiver first, then an optional
/// time zone string).
pub(crate) fn access(field: Field, args: &[Value]) -> EvalResult {
    access_by(CelGoVersion::V0_29, field, args)
}

/// [`access`] as cel-go release `v` has it: before v0.29 (783267d0) the
/// minutes of an offset `±HH:MM` are not checked (`+01:90` is 2h30).
fn access_by(v: CelGoVersion, field: Field, args: &[Value]) -> EvalResult {
    let minutes_checked = v >= CelGoVersion::V0_29;
    match args {
        [Value::Timestamp(t)] => Ok(Value::Int(field.of(&t.civil(None)?))),
        [Value::Timestamp(t), Value::String(tz)] => Ok(Value::Int(
            field.of(&t.civil_with(Some(tz), minutes_checked)?),
        )),
        [Value::Duration(d)] => Ok(Value::Int(match field {
            Field::Hours => d.hours(),
            Field::Minutes => d.minutes(),
            Field::Seconds => d.seconds(),
            Field::Milliseconds => d.milliseconds(),
            _ => return Err(EvalError::no_such_overload()),
        })),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Installs release `v`'s time-zone rules in the accessor `name` taking a
/// zone (overload `id`, reading `field`).
pub(crate) fn adapt(b: &mut EnvBuilder, v: CelGoVersion, name: &str, id: &str, field: Field) {
    if v < CelGoVersion::V0_29 {
        let imp = FnImpl::Closure(Arc::new(move |a| access_by(v, field, a)));
        b.replace_implementation(name, id, imp);
    }
}

/// cel-go's `duration.getMilliseconds()`: the total milliseconds, truncated
/// toward zero (see [`super::GoDurationMilliseconds`]).
pub(crate) fn duration_total_milliseconds(v: &Value) -> EvalResult {
    match v {
        Value::Duration(d) => Ok(Value::Int(d.nanos / 1_000_000)),
        _ => Err(EvalError::no_such_overload()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Duration;

    fn int(r: EvalResult) -> i64 {
        match r {
            Ok(Value::Int(i)) => i,
            other => panic!("not an int: {other:?}"),
        }
    }

    #[test]
    fn offset_minutes_are_checked_from_v0_29() {
        let args = [
            Value::Timestamp(crate::value::Timestamp::new(0, 0).unwrap()),
            Value::from("+01:90"),
        ];
        assert_eq!(int(access_by(CelGoVersion::V0_26, Field::Hours, &args)), 2);
        assert_eq!(
            int(access_by(CelGoVersion::V0_26, Field::Minutes, &args)),
            30
        );
        assert_eq!(
            access(Field::Hours, &args).unwrap_err().message(),
            "timezone offset minutes out of range [0, 59]: +01:90"
        );
    }

    #[test]
    fn duration_milliseconds_component_or_total() {
        let d = Value::Duration(Duration::parse("1h2m3s4ms").unwrap());
        assert_eq!(
            int(access(Field::Milliseconds, std::slice::from_ref(&d))),
            4
        );
        assert_eq!(int(duration_total_milliseconds(&d)), 3_723_004);
        let neg = Value::Duration(Duration::parse("-1.5009s").unwrap());
        assert_eq!(int(duration_total_milliseconds(&neg)), -1500);
    }
}
