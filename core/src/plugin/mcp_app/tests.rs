use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::bridge::{self, FromView, ViewNotification, ViewRequest};
use super::*;
use crate::plugin::model::{Auth, McpInfo, PluginFunction, Source};
use crate::plugin::risk::Risk;

#[test]
fn a_tool_links_its_page_and_says_who_may_call_it() {
    let both = json!({"name": "show", "_meta": {"ui": {"resourceUri": "ui://counter/view"}}});
    assert_eq!(
        AppLink::of_tool(&both),
        Some(AppLink {
            resource_uri: Some("ui://counter/view".into()),
            for_model: true,
            for_app: true
        })
    );
    let deprecated = json!({"name": "show", "_meta": {"ui/resourceUri": "ui://counter/old"}});
    assert_eq!(
        AppLink::of_tool(&deprecated).and_then(|l| l.resource_uri),
        Some("ui://counter/old".into())
    );
    let app_only = json!({"name": "bump", "_meta": {"ui": {"visibility": ["app"]}}});
    let link = AppLink::of_tool(&app_only).unwrap();
    assert!(!link.for_model && link.for_app && link.resource_uri.is_none());
    let model_only = json!({"name": "x", "_meta": {"ui": {"resourceUri": "ui://a/b", "visibility": ["model", "other"]}}});
    let link = AppLink::of_tool(&model_only).unwrap();
    assert!(link.for_model && !link.for_app);
    // Not a ui:// page: no page, and with nothing else said, no link at all.
    for uri in [
        "https://evil.example/page",
        "javascript:alert(1)",
        "ui://",
        "ui://a b",
        "",
    ] {
        let tool = json!({"name": "x", "_meta": {"ui": {"resourceUri": uri}}});
        assert_eq!(AppLink::of_tool(&tool), None, "{uri}");
    }
    assert_eq!(AppLink::of_tool(&json!({"name": "plain"})), None);
}

#[test]
fn a_link_round_trips_in_its_stored_shape() {
    let link = AppLink {
        resource_uri: Some("ui://counter/view".into()),
        for_model: false,
        for_app: true,
    };
    let stored = serde_json::to_value(&link).unwrap();
    assert_eq!(
        stored,
        json!({"resourceUri": "ui://counter/view", "forModel": false, "forApp": true})
    );
    assert_eq!(serde_json::from_value::<AppLink>(stored).unwrap(), link);
    // A stored page that is not ui:// is no page.
    let odd: AppLink =
        serde_json::from_value(json!({"resourceUri": "https://x", "forApp": false})).unwrap();
    assert_eq!(odd.resource_uri, None);
    assert!(odd.for_model && !odd.for_app);
}

#[test]
fn mcp_import_keeps_the_link_and_only_the_model_visible_tools_are_offered() {
    let tools = vec![
        json!({"name": "show_counter", "_meta": {"ui": {"resourceUri": "ui://counter/view"}}}),
        json!({"name": "bump", "_meta": {"ui": {"visibility": ["app"]}}}),
        json!({"name": "plain"}),
    ];
    let (functions, _) = crate::plugin::mcp::functions("counter", &tools, Vec::new());
    assert_eq!(functions[0].app_page(), Some("ui://counter/view"));
    assert!(!functions[1].offered_to_model() && functions[1].callable_by_app());
    assert!(functions[2].offered_to_model() && functions[2].callable_by_app());
    let registered = registered(functions);
    let set = crate::plugin::selection::toolset(&[], &[registered], &ToolPreferences::default());
    let offered: Vec<&str> = set.specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(offered, ["mcp_counter__plain", "mcp_counter__show_counter"]);
    assert!(!set.targets.contains_key("mcp_counter__bump"));
}

#[test]
fn the_link_is_part_of_the_fingerprint() {
    let tools = vec![json!({"name": "show", "_meta": {"ui": {"resourceUri": "ui://a/one"}}})];
    let (mut functions, _) = crate::plugin::mcp::functions("s", &tools, Vec::new());
    let plugin = registered(functions.clone()).plugin;
    let before = crate::plugin::fingerprint::fingerprint(&plugin, &functions[0]);
    functions[0].app.as_mut().unwrap().for_app = false;
    assert_ne!(
        before,
        crate::plugin::fingerprint::fingerprint(&plugin, &functions[0]),
        "a tool that apps may no longer call is a new contract"
    );
    // A function without a link keeps the fingerprint it always had.
    functions[0].app = None;
    let plain = crate::plugin::fingerprint::contract(&plugin, &functions[0]);
    assert!(plain.get("app").is_none());
}

fn registered(functions: Vec<PluginFunction>) -> RegisteredPlugin {
    let mut plugin = Plugin::new("counter-1", "Counter", Source::Mcp, Auth::None, functions);
    plugin.mcp = Some(McpInfo {
        server_url: "http://127.0.0.1:9/mcp".into(),
        server_name: "counter".into(),
        resources: true,
        prompts: false,
        headers: BTreeMap::new(),
        revision: None,
        tools_listed_at: None,
        tools_ttl_ms: None,
    });
    let fingerprints = plugin
        .functions
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                crate::plugin::fingerprint::fingerprint(&plugin, f),
            )
        })
        .collect();
    RegisteredPlugin {
        plugin,
        fingerprints,
        tools_fresh_for_ms: None,
    }
}

fn counter() -> RegisteredPlugin {
    let tools = vec![
        json!({"name": "show_counter", "_meta": {"ui": {"resourceUri": "ui://counter/view"}}}),
        json!({"name": "bump", "_meta": {"ui": {"visibility": ["app"]}}}),
        json!({"name": "reset", "annotations": {"destructiveHint": true}, "_meta": {"ui": {"visibility": ["app"]}}}),
        json!({"name": "model_only", "_meta": {"ui": {"visibility": ["model"]}}}),
    ];
    registered(crate::plugin::mcp::functions("counter", &tools, Vec::new()).0)
}

#[test]
fn a_page_calls_only_its_own_servers_tools_that_apps_may_call() {
    let installed = [counter()];
    let prefs = ToolPreferences::default();
    let bump = app_call_target(&installed, &prefs, "counter-1", "bump").unwrap();
    assert_eq!(bump.function, "mcp_counter__bump");
    assert_eq!(bump.risk, Risk::External);
    assert_eq!(
        bump.fingerprint,
        installed[0].fingerprints["mcp_counter__bump"]
    );
    let reset = app_call_target(&installed, &prefs, "counter-1", "reset").unwrap();
    assert_eq!(
        reset.risk,
        Risk::Destructive,
        "the same floors as a model's call"
    );
    assert_eq!(
        app_call_target(&installed, &prefs, "counter-1", "model_only"),
        Err(AppCallRefused::NotForApps("model_only".into()))
    );
    // By the server's name only: Hearth's function name, another plugin, nothing.
    for (plugin, tool) in [
        ("counter-1", "mcp_counter__bump"),
        ("other", "bump"),
        ("counter-1", "missing"),
    ] {
        assert!(matches!(
            app_call_target(&installed, &prefs, plugin, tool),
            Err(AppCallRefused::NoSuchTool(_))
        ));
    }
    let mut off = ToolPreferences::default();
    off.set_function("counter-1", "mcp_counter__bump", false);
    assert_eq!(
        app_call_target(&installed, &off, "counter-1", "bump"),
        Err(AppCallRefused::SwitchedOff("bump".into()))
    );
    let mut plugin_off = ToolPreferences::default();
    plugin_off.set_plugin("counter-1", false);
    assert!(app_call_target(&installed, &plugin_off, "counter-1", "bump").is_err());
}

#[test]
fn a_page_is_read_only_as_an_mcp_app_of_bounded_size() {
    let uri = "ui://counter/view";
    let page = json!({"contents": [{
        "uri": uri,
        "mimeType": "text/html; profile=MCP-App",
        "text": "<!doctype html><p>hi</p>",
        "_meta": {"ui": {"prefersBorder": false, "csp": {
            "connectDomains": ["https://api.example.com", "https://api.example.com"],
            "resourceDomains": ["https://cdn.example.com"]}}}
    }]});
    let read = read_app_resource(&page, uri).unwrap();
    assert_eq!(read.html, "<!doctype html><p>hi</p>");
    assert_eq!(read.prefers_border, Some(false));
    assert_eq!(
        read.asked_origins,
        ["https://api.example.com", "https://cdn.example.com"]
    );

    use base64::Engine;
    let blob = base64::engine::general_purpose::STANDARD.encode("<p>blob</p>");
    let page = json!({"contents": [{"uri": uri, "mimeType": APP_MIME, "blob": blob}]});
    assert_eq!(read_app_resource(&page, uri).unwrap().html, "<p>blob</p>");

    let typed =
        |mime: &str| json!({"contents": [{"uri": uri, "mimeType": mime, "text": "<p>x</p>"}]});
    for mime in ["text/html", "text/plain", "image/svg+xml", ""] {
        assert!(matches!(
            read_app_resource(&typed(mime), uri),
            Err(AppResourceError::WrongType(_))
        ));
    }
    let big = "a".repeat(MAX_APP_HTML_BYTES + 1);
    let page = json!({"contents": [{"uri": uri, "mimeType": APP_MIME, "text": big}]});
    assert_eq!(
        read_app_resource(&page, uri),
        Err(AppResourceError::TooLarge)
    );
    let latin1 = base64::engine::general_purpose::STANDARD.encode([0xff, 0xfe, 0x41]);
    let page = json!({"contents": [{"uri": uri, "mimeType": APP_MIME, "blob": latin1}]});
    assert_eq!(
        read_app_resource(&page, uri),
        Err(AppResourceError::NotText)
    );
    let two = json!({"contents": [
        {"uri": "ui://x/1", "mimeType": APP_MIME, "text": "1"},
        {"uri": "ui://x/2", "mimeType": APP_MIME, "text": "2"}]});
    assert!(matches!(
        read_app_resource(&two, uri),
        Err(AppResourceError::Missing(_))
    ));
    assert_eq!(read_app_resource(&two, "ui://x/2").unwrap().html, "2");
    assert!(read_app_resource(&json!({}), uri).is_err());
}

fn read(message: Value) -> Result<FromView, bridge::BridgeError> {
    bridge::read_from_view(&message.to_string())
}

#[test]
fn the_bridge_reads_only_json_rpc_from_a_page() {
    assert_eq!(
        read(json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {}})),
        Ok(FromView::Request {
            id: json!(1),
            request: ViewRequest::Initialize
        })
    );
    assert_eq!(
        read(json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
            "params": {"name": "bump", "arguments": {"by": 2}}})),
        Ok(FromView::Request {
            id: json!("a"),
            request: ViewRequest::CallTool {
                name: "bump".into(),
                arguments: json!({"by": 2}).as_object().unwrap().clone()
            }
        })
    );
    let Ok(FromView::Request {
        request: ViewRequest::Invalid { .. },
        ..
    }) = read(json!(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "bump", "arguments": [1]}}
    ))
    else {
        panic!("arguments that are not an object are refused");
    };
    assert_eq!(
        read(json!({"jsonrpc": "2.0", "id": 4, "method": "ui/message",
            "params": {"role": "user", "content": {"type": "text", "text": " Why 5? "}}})),
        Ok(FromView::Request {
            id: json!(4),
            request: ViewRequest::Message {
                text: "Why 5?".into()
            }
        })
    );
    for params in [
        json!({"role": "assistant", "content": {"type": "text", "text": "x"}}),
        json!({"role": "user", "content": {"type": "image", "data": "AA=="}}),
        json!({"role": "user", "content": {"type": "text", "text": "  "}}),
        json!({"role": "user", "content": {"type": "text", "text": "a".repeat(bridge::MAX_OFFERED_MESSAGE_CHARS + 1)}}),
        json!({"role": "user"}),
    ] {
        let message = json!({"jsonrpc": "2.0", "id": 5, "method": "ui/message", "params": params});
        assert!(
            matches!(
                read(message),
                Ok(FromView::Request {
                    request: ViewRequest::Invalid { .. },
                    ..
                })
            ),
            "{params}"
        );
    }
    assert_eq!(
        read(
            json!({"jsonrpc": "2.0", "id": 3, "method": "ui/open-link", "params": {"url": "https://x"}})
        ),
        Ok(FromView::Request {
            id: json!(3),
            request: ViewRequest::Unsupported {
                method: "ui/open-link".into()
            }
        })
    );
    assert_eq!(
        read(
            json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"height": 100000}})
        ),
        Ok(FromView::Notification(ViewNotification::SizeChanged {
            height: Some(bridge::MAX_HEIGHT_PX)
        }))
    );
    assert_eq!(
        read(
            json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"height": 3}})
        ),
        Ok(FromView::Notification(ViewNotification::SizeChanged {
            height: Some(bridge::MIN_HEIGHT_PX)
        }))
    );
    assert_eq!(
        read(json!({"jsonrpc": "2.0", "id": 9, "result": {}})),
        Ok(FromView::Answer { id: json!(9) })
    );
    for bad in [
        json!({"id": 1, "method": "ui/initialize"}),
        json!({"jsonrpc": "1.0", "id": 1, "method": "ui/initialize"}),
        json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": "x".repeat(101), "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 1}),
        json!({"jsonrpc": "2.0", "method": ""}),
        json!(["jsonrpc"]),
    ] {
        assert!(read(bad.clone()).is_err(), "{bad}");
    }
    assert_eq!(
        bridge::read_from_view("not json"),
        Err(bridge::BridgeError::NotJsonRpc)
    );
    let huge = json!({"jsonrpc": "2.0", "method": "x", "params": {"p": "a".repeat(bridge::MAX_MESSAGE_CHARS)}});
    assert_eq!(read(huge), Err(bridge::BridgeError::TooLarge));
}

#[test]
fn the_host_answers_in_the_shapes_of_the_extension() {
    let context = bridge::HostContext {
        theme: bridge::Theme::Dark,
        locale: "ja".into(),
        call_id: "call_1".into(),
        tool_name: "show_counter".into(),
        tool_description: "Shows a counter".into(),
        input_schema: json!({"type": "object"}),
    };
    let answer = bridge::initialize_result(&json!(7), &context, "1.2.3");
    assert_eq!(answer["id"], 7);
    let result = &answer["result"];
    assert_eq!(result["protocolVersion"], bridge::PROTOCOL_VERSION);
    assert_eq!(
        result["hostCapabilities"]["sandbox"]["csp"],
        json!({}),
        "no origin granted"
    );
    assert!(result["hostCapabilities"].get("openLinks").is_none());
    assert_eq!(result["hostContext"]["theme"], "dark");
    assert_eq!(
        result["hostContext"]["toolInfo"]["tool"]["name"],
        "show_counter"
    );
    assert_eq!(result["hostContext"]["locale"], "ja");

    assert_eq!(
        bridge::tool_input(r#"{"start": 3}"#),
        json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-input", "params": {"arguments": {"start": 3}}})
    );
    assert_eq!(
        bridge::tool_input("not json")["params"]["arguments"],
        json!({})
    );
    let sent = bridge::tool_result("Count: 3", Some(&json!({"count": 3})), false);
    assert_eq!(sent["method"], "ui/notifications/tool-result");
    assert_eq!(sent["params"]["structuredContent"]["count"], 3);
    assert_eq!(sent["params"]["content"][0]["text"], "Count: 3");

    let outcome = crate::plugin::result::ToolResult {
        text: "4".into(),
        structured: Some(json!({"count": 4})),
        images: vec![crate::plugin::result::ToolImage {
            mime_type: "image/png".into(),
            data: "AA==".into(),
        }],
        ..Default::default()
    };
    let answer = bridge::call_answer(&json!("c"), &outcome);
    assert_eq!(answer["result"]["structuredContent"]["count"], 4);
    assert_eq!(answer["result"]["content"][1]["type"], "image");
    let denied = bridge::call_not_run(&json!(5), "The user denied this tool call.");
    assert_eq!(denied["result"]["isError"], true);
    assert_eq!(
        bridge::unsupported(&json!(1), "ui/message")["error"]["code"],
        bridge::METHOD_NOT_FOUND
    );
}

#[test]
fn the_style_variables_are_hearth_s_tokens() {
    let tokens =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../style/tokens.css"))
            .expect("style/tokens.css");
    // A token's value: from its name to the `;` that ends it (a value may span lines).
    let value_of = |token: &str| -> String {
        let at = tokens
            .find(&format!("{token}:"))
            .unwrap_or_else(|| panic!("{token}"));
        let rest = &tokens[at + token.len() + 1..];
        let value = &rest[..rest.find(';').expect("end of the value")];
        value.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    for (name, token, value) in bridge::STYLE_VARIABLES {
        assert_eq!(value_of(token), value, "{name} is not {token}");
    }
    let sent = bridge::initialize_result(
        &json!(1),
        &bridge::HostContext {
            theme: bridge::Theme::Light,
            locale: "en".into(),
            call_id: "c".into(),
            tool_name: "t".into(),
            tool_description: String::new(),
            input_schema: json!({}),
        },
        "0",
    );
    assert_eq!(
        sent["result"]["hostContext"]["styles"]["variables"]["--color-text-primary"],
        "light-dark(#1c1917, #f3efe9)"
    );
}

#[test]
fn structured_content_is_kept_for_the_page_only_when_small() {
    let small = json!({"count": 3});
    let kept = kept_structured(Some(&small));
    assert_eq!(kept, r#"{"count":3}"#);
    assert_eq!(stored_structured(&kept), Some(small));
    let big = json!({"text": "a".repeat(MAX_KEPT_STRUCTURED_CHARS)});
    assert_eq!(kept_structured(Some(&big)), "");
    assert_eq!(kept_structured(None), "");
    assert_eq!(stored_structured(""), None);
}

#[test]
fn nothing_is_posted_to_a_page_that_its_proxy_would_drop() {
    let small = bridge::result(&json!(1), json!({"ok": true}));
    assert_eq!(bridge::fit(small.clone()), Some(small));
    // An answer too large says so, under its id: the page is not left waiting.
    let outcome = crate::plugin::result::ToolResult {
        text: "a".repeat(bridge::MAX_MESSAGE_CHARS),
        ..Default::default()
    };
    let answer = bridge::fit(bridge::call_answer(&json!("c7"), &outcome)).unwrap();
    assert_eq!(answer["id"], "c7");
    assert_eq!(answer["error"]["code"], bridge::REFUSED);
    assert!(answer.to_string().len() < 1_000);
    // A notification too large is not sent; the call's result is cut to fit.
    let big =
        bridge::notification_to_view("x", json!({"p": "a".repeat(bridge::MAX_MESSAGE_CHARS)}));
    assert_eq!(bridge::fit(big), None);
    for huge in [
        "é".repeat(bridge::MAX_RESULT_TEXT_BYTES),
        "\u{1}".repeat(bridge::MAX_RESULT_TEXT_BYTES * 2),
    ] {
        let structured = json!({"s": "\"".repeat(MAX_KEPT_STRUCTURED_CHARS / 2 - 20)});
        assert!(!kept_structured(Some(&structured)).is_empty());
        let sent = bridge::tool_result(&huge, Some(&structured), false);
        let text = sent["params"]["content"][0]["text"].as_str().unwrap();
        assert!(text.len() <= bridge::MAX_RESULT_TEXT_BYTES + '…'.len_utf8());
        assert!(text.ends_with('…'));
        assert!(bridge::fit(sent).is_some(), "the worst escaping still fits");
    }
    let short = bridge::tool_result("Count: 3", None, false);
    assert_eq!(short["params"]["content"][0]["text"], "Count: 3");
}
