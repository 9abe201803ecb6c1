//! The one server URL an imported description's calls go to: OpenAPI 3's `servers[0]`
//! with its variables' defaults, resolved against the description's own URL, or Swagger
//! 2.0's `schemes` + `host` + `basePath`, each refused with a reason when it would make
//! the URL say something other than its fields do.

use serde_json::Value;

use super::OpenApiError;

/// `{var}` in a server URL replaced by the variable's default.
fn fill_variables(url: &str, variables: Option<&Value>) -> Result<String, OpenApiError> {
    let mut out = String::new();
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| OpenApiError::BadServer(url.to_string()))?;
        let name = &rest[open + 1..open + close];
        let default = variables
            .and_then(|v| v.get(name))
            .and_then(|v| v.get("default"))
            .and_then(Value::as_str)
            .ok_or_else(|| OpenApiError::BadServer(url.to_string()))?;
        out.push_str(default);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

pub(super) fn server_url(spec: &Value, manifest_url: Option<&str>) -> Result<String, OpenApiError> {
    let raw = if let Some(server) = spec.get("servers").and_then(|s| s.get(0)) {
        let url = server
            .get("url")
            .and_then(Value::as_str)
            .ok_or(OpenApiError::NoServer)?;
        fill_variables(url, server.get("variables"))?
    } else if let Some(host) = spec.get("host").and_then(Value::as_str) {
        swagger_server(spec, host)?
    } else {
        return Err(OpenApiError::NoServer);
    };
    let absolute = match url::Url::parse(&raw) {
        Ok(url) => url,
        Err(_) => manifest_url
            .and_then(|m| url::Url::parse(m).ok())
            .and_then(|m| m.join(&raw).ok())
            .ok_or_else(|| OpenApiError::BadServer(raw.clone()))?,
    };
    if !matches!(absolute.scheme(), "http" | "https") || absolute.host_str().is_none() {
        return Err(OpenApiError::BadServer(raw));
    }
    Ok(absolute.as_str().trim_end_matches('/').to_string())
}

/// Swagger 2.0's `schemes` + `host` + `basePath` as one URL. `host` is a name or address
/// with an optional port and nothing else (a path, userinfo or a second scheme in it
/// would make the URL say something else than the fields do); `basePath` starts with
/// `/`; `schemes` must offer http or https (a `ws`- or `ftp`-only API is refused, not
/// called over http).
fn swagger_server(spec: &Value, host: &str) -> Result<String, OpenApiError> {
    let refuse = |reason| OpenApiError::BadSwaggerHost {
        host: host.chars().take(200).collect(),
        reason,
    };
    if host.is_empty() {
        return Err(refuse("it is empty"));
    }
    if host.contains('@') {
        return Err(refuse("it carries userinfo (`@`)"));
    }
    if host.contains("://") {
        return Err(refuse("it carries a scheme; use `schemes`"));
    }
    if host.contains(['/', '?', '#', '\\']) {
        return Err(refuse(
            "it carries a path, query or fragment; use `basePath`",
        ));
    }
    if host.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(refuse("it contains whitespace or control characters"));
    }
    let schemes: Vec<String> = spec
        .get("schemes")
        .and_then(Value::as_array)
        .map(|s| {
            s.iter()
                .filter_map(Value::as_str)
                .map(str::to_ascii_lowercase)
                .collect()
        })
        .unwrap_or_default();
    let scheme = if schemes.is_empty() || schemes.iter().any(|s| s == "https") {
        "https"
    } else if schemes.iter().any(|s| s == "http") {
        "http"
    } else {
        return Err(OpenApiError::UnsupportedSchemes(
            schemes.into_iter().take(8).collect(),
        ));
    };
    let base = spec.get("basePath").and_then(Value::as_str).unwrap_or("");
    if !base.is_empty() && (!base.starts_with('/') || base.contains(['?', '#', '\\', '@'])) {
        return Err(refuse("its basePath must be a path starting with `/`"));
    }
    Ok(format!("{scheme}://{host}{base}"))
}
