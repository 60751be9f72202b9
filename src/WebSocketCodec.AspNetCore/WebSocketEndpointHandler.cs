using System.Text;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Http.Timeouts;
using Microsoft.Extensions.Logging;
using WebSocketCodec.Http1;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The request delegate of a websocket endpoint: strict validation, then the Pipelines websocket on the
/// stream Kestrel's upgrade returns.</summary>
internal sealed partial class WebSocketEndpointHandler(
    WebSocketAcceptOptions options, Func<HttpContext, WebSocketChannel, Task> application, WebSocketRegistry registry, ILogger logger)
{
    public async Task HandleAsync(HttpContext context)
    {
        HttpRequest request = context.Request;
        HandshakeFailure failure = WebSocketUpgradeRequest.Validate(
            request.Method, request.Protocol, new HeaderDictionarySource(request.Headers), out WebSocketUpgradeRequest? upgrade);
        string? subprotocol = null;
        if (!failure.IsFailure)
        {
            failure = options.Negotiate(upgrade!, out subprotocol);
        }

        IHttpUpgradeFeature? upgradeFeature = context.Features.Get<IHttpUpgradeFeature>();
        if (!failure.IsFailure && upgradeFeature is not { IsUpgradableRequest: true })
        {
            failure = new HandshakeFailure(400, "This connection cannot be upgraded.");
        }

        if (failure.IsFailure)
        {
            LogRefused(logger, request.Path, failure.StatusCode, failure.Message);
            await RefuseAsync(context, failure).ConfigureAwait(false);
            return;
        }

        // A websocket outlives any request timeout.
        context.Features.Get<IHttpRequestTimeoutFeature>()?.DisableTimeout();
        IHeaderDictionary headers = context.Response.Headers;
        headers.Upgrade = "websocket";
        headers.Connection = "Upgrade";
        headers["Sec-WebSocket-Accept"] = Handshake.WebSocketHandshake.ComputeAccept(upgrade!.Key);
        if (subprotocol is not null)
        {
            headers["Sec-WebSocket-Protocol"] = subprotocol;
        }

        Stream stream = await upgradeFeature!.UpgradeAsync().ConfigureAwait(false);
        var transport = new StreamDuplexPipe(stream, leaveOpen: true);
        using var channel = new WebSocketChannel(transport, WebSocketRole.Server, options.Session, subprotocol);
        registry.Add(channel);
        try
        {
            LogAccepted(logger, request.Path, subprotocol);
            try
            {
                await application(context, channel).ConfigureAwait(false);
            }
            catch (Exception error) when (!channel.Completion.IsCompleted)
            {
                LogFailed(logger, request.Path, error);
                await channel.CloseAndWaitAsync((ushort)CloseStatus.InternalError, "internal error").ConfigureAwait(false);
                throw;
            }

            // The application may return with the websocket open: close it properly before Kestrel closes the connection.
            WebSocketCloseInfo info = await channel.CloseAndWaitAsync().ConfigureAwait(false);
            LogClosed(logger, request.Path, info.Status, info.Violation, info.Timeout, info.Error);
        }
        finally
        {
            registry.Remove(channel);
        }
    }

    private static async Task RefuseAsync(HttpContext context, HandshakeFailure failure)
    {
        HttpResponse response = context.Response;
        response.StatusCode = failure.StatusCode;
        response.Headers.Connection = "close";
        if (failure.StatusCode == 426)
        {
            response.Headers["Sec-WebSocket-Version"] = "13";
            response.Headers.Upgrade = "websocket";
        }
        else if (failure.StatusCode == 405)
        {
            response.Headers.Allow = "GET";
        }

        response.ContentType = "text/plain; charset=utf-8";
        await response.WriteAsync(failure.Message + "\n", Encoding.UTF8).ConfigureAwait(false);
    }

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket handshake at {Path} refused with {Status}: {Reason}")]
    private static partial void LogRefused(ILogger logger, PathString path, int status, string reason);

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket at {Path} open (subprotocol {Subprotocol})")]
    private static partial void LogAccepted(ILogger logger, PathString path, string? subprotocol);

    [LoggerMessage(Level = LogLevel.Error, Message = "WebSocket application at {Path} failed")]
    private static partial void LogFailed(ILogger logger, PathString path, Exception error);

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket at {Path} ended: status {Status}, violation {Violation}, timeout {Timeout}")]
    private static partial void LogClosed(ILogger logger, PathString path, ushort status, ProtocolViolation violation, SessionTimerResult? timeout, Exception? error);
}
