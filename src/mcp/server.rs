//! The rmcp handler: `tools/list` and `tools/call` for the one tool.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientResult, CustomRequest,
    CustomResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ErrorCode,
    Implementation, InitializeResult, InputRequest, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, ServerRequest, Tool,
};
use rmcp::service::{PeerRequestOptions, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use super::fallback::reach_person;
use super::form::{Dialect, Form};
use super::handover::{self, Road};
use super::kept::Kept;
use super::progress::Waiting;
use super::{Fallback, Options, inbox, log, page, result};
use crate::answer::{AnswerDocument, Unanswered};
use crate::error::{AskError, Detail};
use crate::input::Request;
use crate::model::Prompt;

/// The key of our one elicitation inside an `InputRequiredResult`.
const INPUT_KEY: &str = "ask_user";
/// `requestState` carries the deadline of a 2026-07-28 call across its retry.
const DEADLINE_PREFIX: &str = "deadline-ms:";

pub struct AskUserServer {
    options: Options,
    tool: Tool,
    /// Set by `logging/setLevel` above notice: no log notices for this session.
    notices_muted: AtomicBool,
    /// Answer pages kept past their call (`--wait`), for `{"resume": id}`.
    kept: Kept,
    /// Questions asked through the MCP App form (src/mcp/app.rs).
    apps: super::app::Apps,
}

impl AskUserServer {
    pub fn new(options: Options) -> Self {
        AskUserServer {
            tool: describe_tool(&options.tool_name),
            options,
            notices_muted: AtomicBool::new(false),
            kept: Kept::default(),
            apps: super::app::Apps::default(),
        }
    }
}

/// The Tool object `ask_user describe --format mcp --tool-name NAME` prints.
fn describe_tool(name: &str) -> Tool {
    let text = crate::describe::describe(crate::describe::Format::Mcp, name);
    serde_json::from_str(&text).expect("describe's MCP tool is an rmcp Tool")
}

impl ServerHandler for AskUserServer {
    #[allow(deprecated)] // enable_logging: MCP logging (SEP-2577); see `page`.
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = if matches!(self.options.fallback, Fallback::Web | Fallback::Auto) {
            // The answer page's address is sent as a log notice.
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        // MCP Apps (src/mcp/app.rs): the form is a resource. rmcp refuses the
        // methods of a capability not advertised; clients without the
        // extension list no resources.
        capabilities.resources = Some(Default::default());
        let mut info = InitializeResult::new(capabilities);
        info.server_info =
            Implementation::new(crate::TOOL_NAME, env!("CARGO_PKG_VERSION")).with_title("ask_user");
        info.instructions = Some(format!(
            "One tool, {}: ask the person a structured question and wait for their answer.",
            self.options.tool_name
        ));
        info
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "Method not found: {}; this server answers tools/list and tools/call",
                request.method
            ),
            None,
        ))
    }

    #[allow(deprecated)] // MCP logging (SEP-2577); see `page`.
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let muted = !page::shows_notices(request.level);
        self.notices_muted.store(muted, Ordering::Relaxed);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        if super::app::client_shows_apps(&context) {
            let tools = super::app::tools(&self.tool, &self.options.tool_name);
            return Ok(ListToolsResult::with_all_items(tools));
        }
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, McpError> {
        Ok(super::app::resources(&context))
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, McpError> {
        super::app::read(&request, &context).map(Into::into)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if super::app::client_shows_apps(&context)
            && request.name == super::app::submit_tool_name(&self.options.tool_name)
        {
            return Ok(super::app::submit(&self.kept, &self.apps, &request)
                .await
                .into());
        }
        if request.name != self.options.tool_name {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool {:?}; this server has one tool, {}",
                    request.name, self.options.tool_name
                ),
                None,
            ));
        }
        let prompt = match parse_arguments(request.arguments.clone()) {
            Ok(Request::Ask { prompt, .. }) => prompt,
            Ok(Request::Resume(id)) if self.apps.holds(&id) => {
                let resumed =
                    super::app::resume(&self.options, &self.kept, &self.apps, &id, &context);
                return Ok(resumed.await.into());
            }
            Ok(Request::Resume(id)) => return Ok(self.resume(id, &context).await.into()),
            Err(err) => return Ok(result::error(&err).into()),
        };
        let timeout = prompt
            .timeout_ms
            .map(Duration::from_millis)
            .or(self.options.default_timeout);
        // No forms, but the client opens URLs: the question's own page (src/mcp/url.rs).
        if self.options.elicitation
            && !client_shows_forms(&context)
            && super::url::client_opens_urls(&context)
            && let Some(response) = super::url::ask(
                &self.options,
                &self.kept,
                &prompt,
                &request,
                timeout,
                &context,
            )
            .await
        {
            return Ok(response);
        }
        if !self.options.elicitation || !client_shows_forms(&context) {
            // No forms, but the client renders MCP Apps: the form in the chat (src/mcp/app.rs).
            if super::app::client_shows_apps(&context) {
                let (options, kept, apps) = (&self.options, &self.kept, &self.apps);
                let asked = super::app::ask(options, kept, apps, &prompt, timeout, &context);
                return Ok(asked.await.into());
            }
            return Ok(self.reach_person(&prompt, timeout, &context).await.into());
        }
        let version = context.protocol_version();
        let form = Form::new(&prompt, Dialect::for_version(version.as_ref()));
        if version.is_some_and(|v| !v.has_initialize()) {
            Ok(self.ask_stateless(&prompt, form, &request, timeout))
        } else {
            Ok(self
                .ask_and_wait(&prompt, form, &context, timeout)
                .await
                .into())
        }
    }
}

/// Arguments → a question (read exactly as the toolbox face reads its
/// input) or a resume.
fn parse_arguments(arguments: Option<rmcp::model::JsonObject>) -> Result<Request, AskError> {
    let value = arguments.map(Value::Object).unwrap_or(Value::Null);
    crate::input::check_size(&serde_json::to_vec(&value).unwrap_or_default())?;
    crate::input::request_from_object(crate::input::into_object(value)?)
}

/// Whether the client declared form elicitation (an empty `elicitation: {}` means form).
fn client_shows_forms(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|caps| caps.elicitation)
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

fn elicit_request(form: Form) -> ElicitRequest {
    ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: form.message,
        requested_schema: form.schema,
    })
}

/// The person's reply to the form → the tool result.
fn outcome(prompt: &Prompt, form: &Form, reply: ElicitResult) -> CallToolResult {
    match reply.action {
        ElicitationAction::Accept => match form.read(prompt, reply.content.as_ref()) {
            Ok(document) => result::answered(&document),
            Err(err) => result::error(&err),
        },
        ElicitationAction::Decline => {
            result::answered(&AnswerDocument::unanswered(Unanswered::Declined))
        }
        // Cancel, and any action a later revision adds: no answer.
        _ => result::answered(&AnswerDocument::unanswered(Unanswered::Cancelled)),
    }
}

fn timed_out() -> CallToolResult {
    result::answered(&AnswerDocument::unanswered(Unanswered::TimedOut))
}

impl AskUserServer {
    async fn reach_person(
        &self,
        prompt: &Prompt,
        timeout: Option<Duration>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let log_notices = page::wants_notices(context, self.notices_muted.load(Ordering::Relaxed));
        reach_person(
            &self.options,
            &self.kept,
            prompt,
            timeout,
            context,
            log_notices,
        )
        .await
    }

    /// `{"resume": id}`: a question whose page this process keeps, else one
    /// in the inbox; UNKNOWN_QUESTION when neither has it.
    async fn resume(&self, id: String, context: &RequestContext<RoleServer>) -> CallToolResult {
        let wait = self.options.wait;
        if let Some(result) = page::resume_kept(&self.kept, &id, wait, context).await {
            return result;
        }
        if !inbox::runs() {
            return result::error(&AskError::UnknownQuestion(Detail::at(
                format!(
                    "no question {id:?} is kept by this MCP server, and no inbox runs to look in; resume takes the inboxId of a pending or timed-out document from this server or a running inbox (ask the question again if it is gone)"
                ),
                "resume",
            )));
        }
        let timeout = self.options.default_timeout;
        inbox::resume_in_inbox(id, timeout, wait, context).await
    }

    /// Initialize era: send `elicitation/create` and wait for the person, the
    /// timeout, or the client's `notifications/cancelled`, whichever is first.
    async fn ask_and_wait(
        &self,
        prompt: &Prompt,
        form: Form,
        context: &RequestContext<RoleServer>,
        timeout: Option<Duration>,
    ) -> CallToolResult {
        let request = ServerRequest::ElicitRequest(elicit_request(form.clone()));
        let mut handle = match context
            .peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(err) => {
                log(format_args!(
                    "could not send the form ({err}); using the fallback"
                ));
                return self.reach_person(prompt, timeout, context).await;
            }
        };
        let deadline = async {
            match timeout {
                Some(timeout) => tokio::time::sleep(timeout).await,
                None => std::future::pending().await,
            }
        };
        // `--wait`: a form not answered by then goes on elsewhere (src/mcp/handover.rs).
        let started = tokio::time::Instant::now();
        let wait_ends = async {
            match self.options.wait {
                Some(wait) => tokio::time::sleep(wait).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(deadline, wait_ends);
        let mut waiting = Waiting::new(context, timeout);
        let reply = loop {
            tokio::select! {
                // A reply first, then the question's own limit, when several are ready.
                biased;
                reply = &mut handle.rx => break reply,
                () = &mut deadline => {
                    let _ = handle.cancel(Some("ask_user timed out waiting for the person".into())).await;
                    return timed_out();
                }
                () = context.ct.cancelled() => {
                    // The client gave up on this call: withdraw the form. rmcp
                    // sends no response for a cancelled request.
                    let _ = handle.cancel(Some("the tool call was cancelled".into())).await;
                    return result::answered(&AnswerDocument::unanswered(Unanswered::Cancelled));
                }
                () = &mut wait_ends => {
                    let left = timeout.map(|timeout| timeout.saturating_sub(started.elapsed()));
                    return self.after_the_wait(prompt, form, handle, left, context).await;
                }
                () = waiting.tick() => waiting.report(context, "").await,
            }
        };
        match reply {
            Ok(Ok(ClientResult::ElicitResult(reply))) => outcome(prompt, &form, reply),
            Ok(Ok(other)) => result::error(&AskError::InternalError(Detail::new(format!(
                "the client answered the form with something else ({other:?}); ask the person in the chat instead"
            )))),
            Ok(Err(err)) => {
                log(format_args!(
                    "the client could not show the form ({err}); using the fallback"
                ));
                self.reach_person(prompt, timeout, context).await
            }
            Err(_) => result::error(&AskError::InternalError(Detail::new(
                "the connection closed while waiting for the person",
            ))),
        }
    }

    /// The form was not answered within `--wait`: the question takes the
    /// `--fallback` road. The page and the inbox return pending with the
    /// form still open (src/mcp/handover.rs); the other fallbacks withdraw
    /// the form and answer the call as for a client without forms.
    /// `timeout`: what is left of the question's own limit.
    async fn after_the_wait(
        &self,
        prompt: &Prompt,
        form: Form,
        request: handover::FormRequest,
        timeout: Option<Duration>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        match Road::of(self.options.fallback, inbox::runs) {
            Road::Fallback => {
                let why = "the form was not answered within the wait";
                let _ = request.cancel(Some(why.into())).await;
                self.reach_person(prompt, timeout, context).await
            }
            road => {
                let log_notices =
                    page::wants_notices(context, self.notices_muted.load(Ordering::Relaxed));
                let (options, kept) = (&self.options, &self.kept);
                handover::hand_over(
                    road,
                    options,
                    kept,
                    prompt,
                    form,
                    request,
                    timeout,
                    context,
                    log_notices,
                )
                .await
            }
        }
    }

    /// 2026-07-28: no server-to-client requests. The first call returns the
    /// form inside an `InputRequiredResult`; the client shows it and retries
    /// the call with the reply. The deadline rides along in `requestState`,
    /// so a reply that comes back after it counts as timed out.
    fn ask_stateless(
        &self,
        prompt: &Prompt,
        form: Form,
        request: &CallToolRequestParams,
        timeout: Option<Duration>,
    ) -> CallToolResponse {
        let reply = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(INPUT_KEY))
            .and_then(|value| serde_json::from_value::<ElicitResult>(value.clone()).ok());
        let deadline = request.request_state.as_deref().and_then(parse_deadline);
        match reply {
            Some(_) if deadline.is_some_and(|d| now_ms() > d) => timed_out().into(),
            Some(reply) => outcome(prompt, &form, reply).into(),
            None if deadline.is_some_and(|d| now_ms() > d) => timed_out().into(),
            None => {
                // No deadline without a timeout: the client keeps the call as long as it likes.
                let deadline = deadline.or_else(|| {
                    timeout.map(|timeout| now_ms().saturating_add(timeout.as_millis() as u64))
                });
                let requests = BTreeMap::from([(
                    INPUT_KEY.to_string(),
                    InputRequest::Elicitation(elicit_request(form)),
                )]);
                InputRequiredResult::new(
                    Some(requests),
                    deadline.map(|deadline| format!("{DEADLINE_PREFIX}{deadline}")),
                )
                .into()
            }
        }
    }
}

fn parse_deadline(state: &str) -> Option<u64> {
    state.strip_prefix(DEADLINE_PREFIX)?.parse().ok()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}
