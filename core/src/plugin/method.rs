//! The HTTP methods a plugin's REST function may use, and their names. Below both the
//! plugin model (a function's contract) and the risk floors (a method sets one).

use serde::{Deserialize, Serialize};

/// The HTTP methods a REST function may use (no TRACE, CONNECT, OPTIONS or HEAD).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum HttpMethod {
    /// GET.
    Get,
    /// POST.
    Post,
    /// PUT.
    Put,
    /// PATCH.
    Patch,
    /// DELETE.
    Delete,
}

impl HttpMethod {
    /// The method named `name` (any case), if it is one a plugin may use.
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_uppercase().as_str() {
            "GET" => Some(Self::Get),
            "POST" => Some(Self::Post),
            "PUT" => Some(Self::Put),
            "PATCH" => Some(Self::Patch),
            "DELETE" => Some(Self::Delete),
            _ => None,
        }
    }

    /// The method's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Patch => "PATCH",
            Self::Delete => "DELETE",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_are_the_five_a_plugin_may_use() {
        for name in ["get", "POST", "Put", "patch", "DELETE"] {
            let method = HttpMethod::parse(name).unwrap();
            assert_eq!(method.as_str(), name.to_ascii_uppercase());
        }
        for refused in ["TRACE", "CONNECT", "OPTIONS", "HEAD", ""] {
            assert_eq!(HttpMethod::parse(refused), None, "{refused}");
        }
    }
}
