//! The guideline's standardized variables (*Variables*: "The following
//! additional variables are standardized and MUST be used when applicable"),
//! declared as dotted CEL variables of the stated types. The guideline's
//! "number" is CEL's `int`, "time" its `google.protobuf.Timestamp`.

use crate::types::Type;

/// One standardized variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StandardVariable {
    /// `destination.ip`: destination IP address for a packet (`string`).
    DestinationIp,
    /// `destination.port`: destination port for a packet (`int`).
    DestinationPort,
    /// `request.body`: HTTP request body (`bytes`).
    RequestBody,
    /// `request.time`: HTTP request timestamp (`google.protobuf.Timestamp`).
    RequestTime,
    /// `response.body`: HTTP or DNS response body (`bytes`).
    ResponseBody,
    /// `response.time`: HTTP or DNS response timestamp
    /// (`google.protobuf.Timestamp`).
    ResponseTime,
    /// `source.ip`: source IP address for a packet (`string`).
    SourceIp,
    /// `source.port`: source port for a packet (`int`).
    SourcePort,
}

impl StandardVariable {
    /// Every standardized variable, in the guideline's order.
    pub const ALL: [StandardVariable; 8] = [
        StandardVariable::DestinationIp,
        StandardVariable::DestinationPort,
        StandardVariable::RequestBody,
        StandardVariable::RequestTime,
        StandardVariable::ResponseBody,
        StandardVariable::ResponseTime,
        StandardVariable::SourceIp,
        StandardVariable::SourcePort,
    ];

    /// The CEL name, e.g. `destination.ip`.
    pub fn name(self) -> &'static str {
        match self {
            StandardVariable::DestinationIp => "destination.ip",
            StandardVariable::DestinationPort => "destination.port",
            StandardVariable::RequestBody => "request.body",
            StandardVariable::RequestTime => "request.time",
            StandardVariable::ResponseBody => "response.body",
            StandardVariable::ResponseTime => "response.time",
            StandardVariable::SourceIp => "source.ip",
            StandardVariable::SourcePort => "source.port",
        }
    }

    /// The maximum size the preset declares: 45 code points for the IP
    /// addresses (the longest textual IPv6 address,
    /// `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`), none otherwise.
    pub fn max_size(self) -> Option<u64> {
        match self {
            StandardVariable::DestinationIp | StandardVariable::SourceIp => Some(45),
            _ => None,
        }
    }

    /// The declared type.
    pub fn cel_type(self) -> Type {
        match self {
            StandardVariable::DestinationIp | StandardVariable::SourceIp => Type::String,
            StandardVariable::DestinationPort | StandardVariable::SourcePort => Type::Int,
            StandardVariable::RequestBody | StandardVariable::ResponseBody => Type::Bytes,
            StandardVariable::RequestTime | StandardVariable::ResponseTime => Type::Timestamp,
        }
    }
}
