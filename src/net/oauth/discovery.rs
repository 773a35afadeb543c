//! Where an MCP server's authorization is described, in the order the specification says to
//! look (2026-07-28 basic/authorization, "Authorization Server Discovery"), and the checks a
//! document must pass before it is used: the protected-resource metadata (RFC 9728) names the
//! resource the client asked for; the authorization-server metadata (RFC 8414, OpenID
//! Discovery) names the issuer its URL was built from. Pure: URLs in, URLs and verdicts out.

use serde::Deserialize;
use url::Url;

/// Protected-resource metadata (RFC 9728 section 2): the members a client uses.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ResourceMetadata {
    pub resource: Option<String>,
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization-server metadata (RFC 8414 section 2): the members a client uses.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: Option<String>,
    pub token_endpoint: Option<String>,
    pub registration_endpoint: Option<String>,
    /// RFC 7009, where `mcpguard auth logout` revokes what it forgets.
    #[serde(default)]
    pub revocation_endpoint: Option<String>,
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Vec<String>,
    #[serde(default)]
    pub code_challenge_methods_supported: Vec<String>,
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
}

/// Why a URL or a document cannot be used.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    #[error("{url} is not an absolute http(s) URL")]
    NotAUrl { url: String },
    #[error(
        "the protected-resource metadata is for {said}, not for {asked}: a client must not use it (RFC 9728 section 3.3)"
    )]
    WrongResource { said: String, asked: String },
    #[error(
        "the authorization-server metadata fetched for {expected} says its issuer is {said}: a client must not use it (RFC 8414 section 3.3)"
    )]
    WrongIssuer { said: String, expected: String },
}

fn parse(url: &str) -> Result<Url, DiscoveryError> {
    Url::parse(url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
        .ok_or_else(|| DiscoveryError::NotAUrl {
            url: url.to_owned(),
        })
}

/// The canonical URI of an MCP server (RFC 8707 section 2 as the spec reads it): lowercase
/// scheme and host (the URL parser does that), no fragment, no trailing slash on the path.
pub fn canonical_resource(server_url: &str) -> Result<String, DiscoveryError> {
    let mut url = parse(server_url)?;
    url.set_fragment(None);
    let mut text = url.to_string();
    if url.query().is_none() {
        while text.ends_with('/') {
            text.pop();
        }
    }
    Ok(text)
}

/// Where to look for the protected-resource metadata of `server_url`: the challenge's
/// `resource_metadata` when given; else the well-known URI with the endpoint's path, then at
/// the root.
pub fn resource_metadata_urls(
    server_url: &str,
    from_challenge: Option<&str>,
) -> Result<Vec<String>, DiscoveryError> {
    if let Some(url) = from_challenge {
        return Ok(vec![parse(url)?.to_string()]);
    }
    let url = parse(server_url)?;
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    out.push(format!("{origin}/.well-known/oauth-protected-resource"));
    Ok(out)
}

/// A protected-resource metadata document checked against the server it was fetched for: its
/// `resource` must name that server, or a part of the same origin that contains it (the root
/// document of `https://h/mcp` names `https://h`; the SDKs and RFC 9728bis accept the path
/// prefix), compared in canonical form. Another origin is refused.
pub fn check_resource(metadata: &ResourceMetadata, server_url: &str) -> Result<(), DiscoveryError> {
    let asked = canonical_resource(server_url)?;
    let contains = |said: &str| {
        canonical_resource(said).is_ok_and(|said| {
            asked == said
                || asked
                    .strip_prefix(&said)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    };
    match &metadata.resource {
        Some(said) if contains(said) => Ok(()),
        Some(said) => Err(DiscoveryError::WrongResource {
            said: said.clone(),
            asked,
        }),
        None => Err(DiscoveryError::WrongResource {
            said: "no resource".to_owned(),
            asked,
        }),
    }
}

/// Where to look for the metadata of an authorization server, in the specification's order:
/// for an issuer with a path, RFC 8414 with the path inserted, OpenID with the path inserted,
/// OpenID with the path appended; for one without, RFC 8414 then OpenID.
pub fn server_metadata_urls(issuer: &str) -> Result<Vec<String>, DiscoveryError> {
    let url = parse(issuer)?;
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    Ok(if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    })
}

/// An authorization-server metadata document checked against the issuer its URL was built
/// from: identical, character for character.
pub fn check_issuer(metadata: &ServerMetadata, issuer: &str) -> Result<(), DiscoveryError> {
    if metadata.issuer == issuer {
        Ok(())
    } else {
        Err(DiscoveryError::WrongIssuer {
            said: metadata.issuer.clone(),
            expected: issuer.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_uris_as_the_specification_lists_them() {
        for (given, canonical) in [
            ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
            ("https://mcp.example.com", "https://mcp.example.com"),
            ("https://mcp.example.com/", "https://mcp.example.com"),
            (
                "https://mcp.example.com:8443",
                "https://mcp.example.com:8443",
            ),
            (
                "HTTPS://MCP.Example.com/server/mcp",
                "https://mcp.example.com/server/mcp",
            ),
            (
                "https://mcp.example.com/mcp#fragment",
                "https://mcp.example.com/mcp",
            ),
        ] {
            assert_eq!(
                canonical_resource(given).as_deref(),
                Ok(canonical),
                "{given}"
            );
        }
        assert!(canonical_resource("mcp.example.com").is_err());
        assert!(canonical_resource("file:///etc/passwd").is_err());
    }

    #[test]
    fn resource_metadata_is_looked_for_where_the_specification_says() {
        assert_eq!(
            resource_metadata_urls("https://example.com/public/mcp", None).unwrap(),
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls("https://example.com", None).unwrap(),
            ["https://example.com/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            resource_metadata_urls(
                "https://example.com/mcp",
                Some("https://meta.example.com/prm")
            )
            .unwrap(),
            ["https://meta.example.com/prm"]
        );
        let prm = ResourceMetadata {
            resource: Some("https://EXAMPLE.com/mcp/".into()),
            ..Default::default()
        };
        assert_eq!(check_resource(&prm, "https://example.com/mcp"), Ok(()));
        assert!(matches!(
            check_resource(&prm, "http://127.0.0.1:8080/mcp"),
            Err(DiscoveryError::WrongResource { .. })
        ));
        // The root document names the origin: it covers every path of it, and only that.
        let root = ResourceMetadata {
            resource: Some("https://example.com".into()),
            ..Default::default()
        };
        assert_eq!(check_resource(&root, "https://example.com/mcp"), Ok(()));
        let sibling = ResourceMetadata {
            resource: Some("https://example.com/mc".into()),
            ..Default::default()
        };
        assert!(check_resource(&sibling, "https://example.com/mcp").is_err());
        assert!(check_resource(&root, "https://example.com.evil.net/mcp").is_err());
    }

    #[test]
    fn server_metadata_urls_and_the_issuer_check() {
        assert_eq!(
            server_metadata_urls("https://auth.example.com/tenant1").unwrap(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            server_metadata_urls("https://auth.example.com").unwrap(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        // The specification's example: fetched from the attacker, claiming the honest issuer.
        let doc: ServerMetadata =
            serde_json::from_str(r#"{"issuer": "https://honest.example"}"#).unwrap();
        assert!(matches!(
            check_issuer(&doc, "https://attacker.example"),
            Err(DiscoveryError::WrongIssuer { .. })
        ));
        assert_eq!(check_issuer(&doc, "https://honest.example"), Ok(()));
        // Identical means identical: no trailing-slash leniency.
        assert!(check_issuer(&doc, "https://honest.example/").is_err());
    }
}
