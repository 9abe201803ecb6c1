//! The host side of one MCP App's page: reads the page from its server, frames the
//! sandbox proxy, hands it the page once the proxy says it is ready (and is isolated),
//! and answers the page's JSON-RPC (`hearth_core::plugin::mcp_app::bridge`): the
//! handshake with the host context, then the call's arguments and result; its size;
//! reads of its server's resources (at most [`bridge::MAX_READS_PER_PAGE`]); a message it offers, put in the composer (never
//! sent by the page); and its tool calls, each resolved to its own
//! server's tools that apps may call, confirmed under the user's mode exactly as a
//! model's call (risk, session approvals bound to the fingerprint), executed through the
//! edge with that fingerprint, one at a time and at most
//! [`bridge::MAX_CALLS_PER_PAGE`]. A call waiting for the user is denied if the page
//! goes away. Every message must come from this page's frame, and every answer fits
//! what the proxy passes on (`bridge::fit`), so the page is never left waiting.

use hearth_core::chat::tools::{ToolCallRecord, redact_arguments};
use hearth_core::plugin::approval::{self, DENIED_RESULT, Decision, Offer};
use hearth_core::plugin::mcp_app::bridge::{self, FromView, ViewNotification, ViewRequest};
use hearth_core::plugin::mcp_app::{self, AppResource, app_call_target};
use hearth_core::plugin::risk::Risk;
use leptos::prelude::*;
use serde_json::{Map, Value, json};
use web_sys::HtmlIFrameElement;

use super::Page;
use crate::i18n::{Key, tr, use_i18n};
use crate::plugins::{Answer, Plugins, risk_key, use_plugins};

/// Where the edge serves the proxy page.
const SANDBOX_PATH: &str = "/sandbox/app";

/// How often a waiting call looks for the user's answer, in ms.
const ANSWER_POLL_MS: i32 = 100;

/// How long the proxy may take to say it is ready before the page is said not to start.
const START_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(8);

/// How the page stands.
#[derive(Debug, Clone, PartialEq)]
enum Stage {
    /// Its HTML is being read from the server.
    Reading,
    /// It could not be read: why.
    Unreadable(String),
    /// Framed; the proxy has not said it is ready.
    Starting(AppResource),
    /// The page has it (`started`), and the handshake may come.
    Running(AppResource),
    /// The proxy never said it was ready, or its policy was lost.
    NotStarted,
}

/// What the page's latest tool call came to, for the line under it.
#[derive(Debug, Clone, PartialEq)]
enum Activity {
    Running(String),
    Ran(String),
    Denied(String),
    Refused(String),
    Failed(String, String),
    /// A message the page offered is in the composer.
    Offered,
}

/// A call of the page's waiting for the user.
#[derive(Debug, Clone, PartialEq)]
struct Waiting {
    /// Where the user's answer is filed (`Plugins::answer`).
    key: String,
    tool: String,
    arguments: String,
    risk: Risk,
    offer: Offer,
}

/// Everything the message handler needs, all `Copy`.
#[derive(Clone, Copy)]
struct Host {
    frame: NodeRef<leptos::html::Iframe>,
    stage: RwSignal<Stage>,
    call: StoredValue<ToolCallRecord>,
    page: StoredValue<Page>,
    height: RwSignal<u32>,
    initialized: RwSignal<bool>,
    calls_made: StoredValue<u32>,
    messages_offered: StoredValue<u32>,
    reads_made: StoredValue<u32>,
    busy: StoredValue<bool>,
    activity: RwSignal<Option<Activity>>,
    waiting: RwSignal<Option<Waiting>>,
    // Taken from the context here: the message handler runs outside any owner.
    plugins: Plugins,
    prefs: crate::preferences::Prefs,
    theme: crate::theme::Theme,
    i18n: crate::i18n::I18n,
    pwa: crate::pwa::Pwa,
}

/// One page, framed, with its confirmation card and the line that says what its
/// latest call did.
#[component]
pub fn AppHost(call: ToolCallRecord, page: Page) -> impl IntoView {
    let i18n = use_i18n();
    let host = Host {
        frame: NodeRef::new(),
        stage: RwSignal::new(Stage::Reading),
        call: StoredValue::new(call),
        page: StoredValue::new(page),
        height: RwSignal::new(bridge::MIN_HEIGHT_PX * 2),
        initialized: RwSignal::new(false),
        calls_made: StoredValue::new(0),
        messages_offered: StoredValue::new(0),
        reads_made: StoredValue::new(0),
        busy: StoredValue::new(false),
        activity: RwSignal::new(None),
        waiting: RwSignal::new(None),
        plugins: use_plugins(),
        prefs: crate::preferences::use_prefs(),
        theme: crate::theme::use_theme(),
        i18n,
        pwa: crate::pwa::use_pwa(),
    };
    leptos::task::spawn_local(read_page(host));
    let listener =
        window_event_listener(leptos::ev::message, move |event| on_message(host, &event));
    on_cleanup(move || {
        listener.remove();
        // The page is told before it goes; a call waiting for the user is denied (its
        // wait sees the host gone).
        if host.initialized.try_get_untracked() == Some(true) {
            post(host, &bridge::teardown(1));
        }
    });
    // The page follows the theme.
    Effect::new(move |_| {
        let dark = host.theme.is_dark();
        if host.initialized.get_untracked() {
            post(host, &bridge::theme_changed(theme_of(dark)));
        }
    });
    // Starting and running show the same frame: the switch must not make a new one (a
    // new frame is a new page).
    let shown = Memo::new(move |_| match host.stage.get() {
        Stage::Running(resource) => Stage::Starting(resource),
        other => other,
    });
    move || {
        match shown.get() {
            Stage::Reading => view! {
                <p class="mcp-app__status" role="status" aria-busy="true">{tr(Key::McpAppLoading)}</p>
            }
            .into_any(),
            Stage::Unreadable(reason) => view! {
                <p class="mcp-app__status mcp-app__status--error" role="alert">
                    {i18n.t_with(Key::McpAppFailed, &[("reason", &reason)])}
                </p>
            }
            .into_any(),
            Stage::NotStarted => view! {
                <p class="mcp-app__status mcp-app__status--error" role="alert">{tr(Key::McpAppNotStarted)}</p>
            }
            .into_any(),
            Stage::Starting(resource) | Stage::Running(resource) => framed(host, resource).into_any(),
        }
    }
}

/// The frame, the note on its sandbox, the waiting call's card and the activity line.
fn framed(host: Host, resource: AppResource) -> impl IntoView {
    let i18n = use_i18n();
    let asked = (!resource.asked_origins.is_empty()).then(|| resource.asked_origins.join(", "));
    let bordered = resource.prefers_border != Some(false);
    set_timeout(
        move || {
            if matches!(host.stage.try_get_untracked(), Some(Stage::Starting(_))) {
                host.stage.set(Stage::NotStarted);
            }
        },
        START_TIMEOUT,
    );
    let frame = host.frame;
    Effect::new(move |_| {
        let height = host.height.get();
        if let Some(frame) = frame.get() {
            let _ =
                web_sys::HtmlElement::style(&frame).set_property("height", &format!("{height}px"));
        }
    });
    view! {
        <iframe
            node_ref=frame
            class=if bordered { "mcp-app__frame mcp-app__frame--bordered" } else { "mcp-app__frame" }
            referrerpolicy="no-referrer"
            title=tr(Key::McpAppTitle)
            src=SANDBOX_PATH
        ></iframe>
        <p class="mcp-app__note">
            {tr(Key::McpAppSandboxed)}
            {asked.map(|origins| format!(" {}", i18n.t_with(Key::McpAppAsked, &[("origins", &origins)])))}
        </p>
        {move || host.waiting.get().map(|waiting| confirm_card(host, waiting))}
        {move || host.activity.get().map(|activity| {
            let text = match activity {
                Activity::Running(name) => i18n.t_with(Key::McpAppRunning, &[("name", &name)]),
                Activity::Ran(name) => i18n.t_with(Key::McpAppRan, &[("name", &name)]),
                Activity::Denied(name) => i18n.t_with(Key::McpAppDenied, &[("name", &name)]),
                Activity::Refused(name) => i18n.t_with(Key::McpAppRefused, &[("name", &name)]),
                Activity::Offered => i18n.t(Key::McpAppOffered),
                Activity::Failed(name, reason) => {
                    i18n.t_with(Key::McpAppCallFailed, &[("name", &name), ("reason", &reason)])
                }
            };
            view! { <p class="mcp-app__activity" role="status">{text}</p> }
        })}
    }
}

/// The card of a call the page asked for and the user must answer.
fn confirm_card(host: Host, waiting: Waiting) -> impl IntoView {
    let i18n = use_i18n();
    let key = StoredValue::new(waiting.key.clone());
    // The page asked from inside its frame: the question takes the focus, and the answer
    // gives it back to the frame.
    let deny = NodeRef::<leptos::html::Button>::new();
    request_animation_frame(move || {
        if let Some(button) = deny.get_untracked() {
            let _ = button.focus();
        }
    });
    let answer = move |answer: Answer| {
        key.with_value(|key| host.plugins.answer(key, answer));
        if let Some(frame) = host.frame.get_untracked() {
            let _ = frame.focus();
        }
    };
    let title_id = crate::browser::unique_id("mcp-app-confirm");
    let labelled_by = title_id.clone();
    let tool = waiting.tool.clone();
    view! {
        <div class="confirm-card mcp-app__confirm" role="group" aria-labelledby=labelled_by data-app-confirm=tool>
            <p class="confirm-card__title" id=title_id>
                {i18n.t_with(Key::McpAppConfirm, &[("name", &waiting.tool)])}
                " "
                <span class=format!("risk risk--{}", waiting.risk.as_str())>{tr(risk_key(waiting.risk))}</span>
            </p>
            <pre class="tool-call__code">{waiting.arguments.clone()}</pre>
            <div class="confirm-card__actions">
                <button node_ref=deny type="button" class="button button--secondary button--small" data-app-answer="deny"
                    on:click=move |_| answer(Answer::Deny)>
                    {tr(Key::ToolDeny)}
                </button>
                {(waiting.offer == Offer::OnceOrSession).then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-app-answer="session"
                        on:click=move |_| answer(Answer::AllowSession)>
                        {tr(Key::ToolAllowSession)}
                    </button>
                })}
                <button type="button" class="button button--primary button--small" data-app-answer="once"
                    on:click=move |_| answer(Answer::AllowOnce)>
                    {tr(Key::ToolAllowOnce)}
                </button>
            </div>
        </div>
    }
}

fn theme_of(dark: bool) -> bridge::Theme {
    if dark {
        bridge::Theme::Dark
    } else {
        bridge::Theme::Light
    }
}

/// Reads the page from its server (or the session's copy) and frames it.
async fn read_page(host: Host) {
    let page = host.page.get_value();
    if let Some(resource) = super::kept_page(&page.plugin_id, &page.uri) {
        host.stage.set(Stage::Starting(resource));
        return;
    }
    let read = host
        .plugins
        .mcp_resources(
            &page.plugin_id,
            hearth_core::api::McpResourcesAction::Read {
                uri: page.uri.clone(),
            },
        )
        .await;
    let stage = match read {
        Ok(result) => match mcp_app::read_app_resource(&result, &page.uri) {
            Ok(resource) => {
                super::keep_page(&page.plugin_id, &page.uri, &resource);
                Stage::Starting(resource)
            }
            Err(why) => Stage::Unreadable(why.to_string()),
        },
        Err(why) => Stage::Unreadable(why.to_string()),
    };
    let _ = host.stage.try_set(stage);
}

/// Posts `message` to the proxy (which passes it to the page) if it fits what the proxy
/// passes on (`bridge::fit`: an answer too large becomes an error saying so).
fn post(host: Host, message: &Value) {
    if let Some(message) = bridge::fit(message.clone()) {
        post_to_proxy(host, &message);
    }
}

/// Posts `message` to the proxy itself (the page's HTML, which may be larger than what
/// the proxy passes on; it checks the page's own bound).
fn post_to_proxy(host: Host, message: &Value) {
    let Some(window) = host
        .frame
        .try_get_untracked()
        .flatten()
        .and_then(|f| f.content_window())
    else {
        return;
    };
    if let Ok(value) = js_sys::JSON::parse(&message.to_string()) {
        let _ = window.post_message(&value, "*");
    }
}

fn on_message(host: Host, event: &web_sys::MessageEvent) {
    let Some(frame) = host.frame.get_untracked() else {
        return;
    };
    // Only this page's proxy.
    if !crate::browser::sent_by(&frame, event) {
        return;
    }
    let Some(text) = js_sys::JSON::stringify(&event.data())
        .ok()
        .and_then(|t| t.as_string())
    else {
        return;
    };
    if let Some(Stage::Starting(resource)) = host.stage.try_get_untracked() {
        proxy_ready(host, &frame, &text, resource);
        return;
    }
    let Ok(message) = bridge::read_from_view(&text) else {
        return;
    };
    match message {
        FromView::Request { id, request } => answer_request(host, id, request),
        FromView::Notification(ViewNotification::Initialized) => {
            host.initialized.set(true);
            let call = host.call.get_value();
            post(host, &bridge::tool_input(&call.arguments));
            post(
                host,
                &bridge::tool_result(
                    &call.result,
                    mcp_app::stored_structured(&call.structured).as_ref(),
                    call.is_error,
                ),
            );
        }
        FromView::Notification(ViewNotification::SizeChanged {
            height: Some(height),
        }) => {
            host.height.set(height);
        }
        FromView::Notification(_) | FromView::Answer { .. } => {}
    }
}

/// The proxy's first message: ready for the page, which it gets if its frame is
/// isolated (its own policy made its origin opaque).
fn proxy_ready(host: Host, frame: &HtmlIFrameElement, text: &str, resource: AppResource) {
    let ready = serde_json::from_str::<Value>(text).is_ok_and(|v| {
        v["method"] == "ui/notifications/sandbox-proxy-ready" && v["jsonrpc"] == "2.0"
    });
    if !ready {
        return;
    }
    if !crate::browser::frame_is_isolated(frame) {
        host.stage.set(Stage::NotStarted);
        return;
    }
    post_to_proxy(
        host,
        &bridge::notification_to_view(
            "ui/notifications/sandbox-resource-ready",
            json!({"html": resource.html, "sandbox": "allow-scripts allow-forms"}),
        ),
    );
    host.stage.set(Stage::Running(resource));
}

fn answer_request(host: Host, id: Value, request: ViewRequest) {
    match request {
        ViewRequest::Initialize => {
            let page = host.page.get_value();
            let call = host.call.get_value();
            let context = bridge::HostContext {
                theme: theme_of(host.theme.is_dark()),
                locale: host.i18n.locale().tag().to_string(),
                call_id: call.id,
                tool_name: page.tool,
                tool_description: page.description,
                input_schema: page.input_schema,
            };
            post(
                host,
                &bridge::initialize_result(&id, &context, env!("CARGO_PKG_VERSION")),
            );
        }
        ViewRequest::Ping => post(host, &bridge::result(&id, json!({}))),
        ViewRequest::DisplayMode => post(host, &bridge::display_mode(&id)),
        ViewRequest::Message { text } => {
            // Into the composer, never sent by the page: the user sends it, or not.
            if host.messages_offered.get_value() >= bridge::MAX_MESSAGES_PER_PAGE {
                post(
                    host,
                    &bridge::error(
                        &id,
                        bridge::REFUSED,
                        "This app has offered the most messages it may.",
                    ),
                );
                return;
            }
            host.messages_offered.update_value(|n| *n += 1);
            host.pwa.offer_to_composer(text);
            host.activity.set(Some(Activity::Offered));
            post(host, &bridge::result(&id, json!({})));
        }
        ViewRequest::Unsupported { method } => post(host, &bridge::unsupported(&id, &method)),
        ViewRequest::Invalid { reason } => {
            post(host, &bridge::error(&id, bridge::INVALID_PARAMS, &reason));
        }
        ViewRequest::ReadResource { uri } => {
            if host.reads_made.get_value() >= bridge::MAX_READS_PER_PAGE {
                post(
                    host,
                    &bridge::error(
                        &id,
                        bridge::REFUSED,
                        "This app has read the most resources it may.",
                    ),
                );
                return;
            }
            host.reads_made.update_value(|n| *n += 1);
            leptos::task::spawn_local(async move {
                let plugin_id = host.page.with_value(|p| p.plugin_id.clone());
                let answer = match host
                    .plugins
                    .mcp_resources(
                        &plugin_id,
                        hearth_core::api::McpResourcesAction::Read { uri },
                    )
                    .await
                {
                    Ok(result) => bridge::result(&id, result),
                    Err(why) => bridge::error(&id, bridge::REFUSED, &why.to_string()),
                };
                post(host, &answer);
            });
        }
        ViewRequest::CallTool { name, arguments } => {
            leptos::task::spawn_local(call_tool(host, id, name, arguments));
        }
    }
}

/// A page's `tools/call`: resolved, confirmed and executed as a model's call would be.
async fn call_tool(host: Host, id: Value, name: String, arguments: Map<String, Value>) {
    if host.busy.get_value() {
        post(
            host,
            &bridge::call_not_run(&id, "Another call of this app is still running."),
        );
        return;
    }
    if host.calls_made.get_value() >= bridge::MAX_CALLS_PER_PAGE {
        post(
            host,
            &bridge::call_not_run(&id, "This app has made the most tool calls it may."),
        );
        return;
    }
    host.busy.set_value(true);
    host.calls_made.update_value(|n| *n += 1);
    let answer = run_call(host, &id, &name, arguments).await;
    post(host, &answer);
    let _ = host.busy.try_set_value(false);
}

async fn run_call(host: Host, id: &Value, name: &str, arguments: Map<String, Value>) -> Value {
    let plugins = host.plugins;
    let plugin_id = host.page.with_value(|p| p.plugin_id.clone());
    let prefs = host.prefs.value.with_untracked(|p| p.tools.clone());
    let target = match plugins
        .installed
        .with_untracked(|installed| app_call_target(installed, &prefs, &plugin_id, name))
    {
        Ok(target) => target,
        Err(refused) => {
            host.activity.set(Some(Activity::Refused(name.to_string())));
            return bridge::call_not_run(id, &refused.to_string());
        }
    };
    let args = Value::Object(arguments);
    let decision = plugins
        .approvals
        .with_untracked(|a| approval::decide(prefs.confirm, a, &target.approval_key()));
    if let Decision::Ask(offer) = decision {
        let key = format!(
            "mcp-app:{}:{}",
            host.call.with_value(|c| c.id.clone()),
            host.calls_made.get_value()
        );
        host.activity.set(None);
        host.waiting.set(Some(Waiting {
            key: key.clone(),
            tool: name.to_string(),
            arguments: redact_arguments(&args.to_string()),
            risk: target.risk,
            offer,
        }));
        let answer = loop {
            if let Some(answer) = plugins.take_answer(&key) {
                break answer;
            }
            // The page went away (its host with it): denied, fail closed.
            if host.waiting.try_get_untracked().is_none() {
                break Answer::Deny;
            }
            crate::browser::sleep_ms(ANSWER_POLL_MS).await;
        };
        let _ = host.waiting.try_set(None);
        match answer {
            Answer::Deny => {
                let _ = host
                    .activity
                    .try_set(Some(Activity::Denied(name.to_string())));
                return bridge::call_not_run(id, DENIED_RESULT);
            }
            Answer::AllowSession if offer == Offer::OnceOrSession => {
                plugins.approve(target.approval_key());
            }
            Answer::AllowSession | Answer::AllowOnce => {}
        }
    }
    let _ = host
        .activity
        .try_set(Some(Activity::Running(name.to_string())));
    match plugins
        .execute(
            &target.plugin_id,
            &target.function,
            &target.fingerprint,
            args,
            None,
            None,
        )
        .await
    {
        // The server asks the user first: only a call from the chat can ask.
        Ok(response) if response.input_required.is_some() => {
            let reason = "This tool asks the user first; ask for it in the chat.";
            let _ = host
                .activity
                .try_set(Some(Activity::Failed(name.to_string(), reason.to_string())));
            bridge::call_not_run(id, reason)
        }
        Ok(response) => {
            let _ = host.activity.try_set(Some(Activity::Ran(name.to_string())));
            bridge::call_answer(id, &response.result)
        }
        Err(why) => {
            let reason = why.to_string();
            let _ = host
                .activity
                .try_set(Some(Activity::Failed(name.to_string(), reason.clone())));
            bridge::call_not_run(id, &reason)
        }
    }
}
