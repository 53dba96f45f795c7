//! Timestamp and duration accessors (`getFullYear`, `getHours`, ... with and
//! without a time zone argument), with cel-go's zero- and one-based fields.

use crate::error::{EvalError, EvalResult};
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
    match args {
        [Value::Timestamp(t)] => Ok(Value::Int(field.of(&t.civil(None)?))),
        [Value::Timestamp(t), Value::String(tz)] => Ok(Value::Int(field.of(&t.civil(Some(tz))?))),
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
