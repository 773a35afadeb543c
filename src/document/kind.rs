//! What a captured message is: a JSON-RPC response with a tool result, a list result
//! (`tools/list`, `resources/list`, ...), resource contents, another result, an error, a request
//! or notification; or, without the envelope, a bare tool result or plain JSON.

/// The recognised shape of a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `tools/call` result: `content` blocks, maybe `structuredContent`.
    ToolResult,
    /// `tools/list`, `resources/list`, `resources/templates/list` or `prompts/list` result.
    ListResult(ListKind),
    /// `resources/read` result: `contents` with text or blob.
    ResourceContents,
    /// Any other JSON-RPC result (initialize, completion, ...).
    OtherResult,
    /// A JSON-RPC error response.
    Error,
    /// A JSON-RPC request or notification (seen in transcripts).
    Request,
    /// JSON that is not an MCP message: an API payload, a file.
    Plain,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Resources,
    ResourceTemplates,
    Prompts,
}

impl ListKind {
    /// The member that holds the list, which is also the method's noun.
    pub fn member(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        }
    }
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 10] = [
        Kind::ToolResult,
        Kind::ListResult(ListKind::Tools),
        Kind::ListResult(ListKind::Resources),
        Kind::ListResult(ListKind::ResourceTemplates),
        Kind::ListResult(ListKind::Prompts),
        Kind::ResourceContents,
        Kind::OtherResult,
        Kind::Error,
        Kind::Request,
        Kind::Plain,
    ];

    /// A short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Kind::ToolResult => "tool result",
            Kind::ListResult(ListKind::Tools) => "tools/list",
            Kind::ListResult(ListKind::Resources) => "resources/list",
            Kind::ListResult(ListKind::ResourceTemplates) => "templates/list",
            Kind::ListResult(ListKind::Prompts) => "prompts/list",
            Kind::ResourceContents => "resource",
            Kind::OtherResult => "result",
            Kind::Error => "error",
            Kind::Request => "request",
            Kind::Plain => "json",
        }
    }
}
