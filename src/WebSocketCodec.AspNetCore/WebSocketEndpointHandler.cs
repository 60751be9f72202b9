using System.Text;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Http.Timeouts;
using Microsoft.Extensions.Logging;
using WebSocketCodec.Http1;
using WebSocketCodec.Http2;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The request delegate of a websocket endpoint: strict validation of an HTTP/1.1 upgrade or an HTTP/2 (or
/// HTTP/3) extended CONNECT, then the Pipelines websocket on the stream Kestrel's upgrade or accept returns.</summary>
internal sealed partial class WebSocketEndpointHandler(
    WebSocketAcceptOptions options, Func<HttpContext, WebSocketChannel, Task> application, WebSocketRegistry registry, ILogger logger)
{
    public async Task HandleAsync(HttpContext context)
    {
        HttpRequest request = context.Request;
        var headerSource = new HeaderDictionarySource(request.Headers);
        IHttpExtendedConnectFeature? connect = context.Features.Get<IHttpExtendedConnectFeature>();
        IHttpUpgradeFeature? upgradeFeature = context.Features.Get<IHttpUpgradeFeature>();
        bool multiplexed = HttpProtocol.IsHttp2(request.Protocol) || HttpProtocol.IsHttp3(request.Protocol);
        WebSocketUpgradeRequest? upgrade;
        HandshakeFailure failure = multiplexed
            ? WebSocketExtendedConnect.Validate(request.Method, connect is { IsExtendedConnect: true } ? connect.Protocol : null, headerSource, out upgrade)
            : WebSocketUpgradeRequest.Validate(request.Method, request.Protocol, headerSource, out upgrade);
        string? subprotocol = null;
        if (!failure.IsFailure)
        {
            failure = options.Negotiate(upgrade!, out subprotocol);
        }

        if (!failure.IsFailure && !multiplexed && upgradeFeature is not { IsUpgradableRequest: true })
        {
            failure = new HandshakeFailure(400, "This connection cannot be upgraded.");
        }

        if (failure.IsFailure)
        {
            LogRefused(logger, request.Path, request.Protocol, failure.StatusCode, failure.Message);
            await RefuseAsync(context, failure, multiplexed).ConfigureAwait(false);
            return;
        }

        // A websocket outlives any request timeout.
        context.Features.Get<IHttpRequestTimeoutFeature>()?.DisableTimeout();
        IHeaderDictionary headers = context.Response.Headers;
        if (subprotocol is not null)
        {
            headers["Sec-WebSocket-Protocol"] = subprotocol;
        }

        Stream stream;
        if (multiplexed)
        {
            // 200 without END_STREAM; the stream then carries the frames both ways (RFC 8441 section 5).
            stream = await connect!.AcceptAsync().ConfigureAwait(false);
        }
        else
        {
            headers.Upgrade = "websocket";
            headers.Connection = "Upgrade";
            headers["Sec-WebSocket-Accept"] = Handshake.WebSocketHandshake.ComputeAccept(upgrade!.Key);
            stream = await upgradeFeature!.UpgradeAsync().ConfigureAwait(false);
        }

        var transport = new StreamDuplexPipe(stream, leaveOpen: true);
        using var channel = new WebSocketChannel(transport, WebSocketRole.Server, options.Session, subprotocol);
        registry.Add(channel);

        // The connection's end or the client's RST_STREAM aborts this websocket (and only this one).
        using CancellationTokenRegistration aborted = context.RequestAborted.UnsafeRegister(static state => ((WebSocketChannel)state!).Abort(), channel);
        try
        {
            LogAccepted(logger, request.Path, request.Protocol, subprotocol);
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
            if (multiplexed && (info.Timeout is not null || (info.Error is not null && info.ReceivedStatus is null)))
            {
                // An abort, a transport error or a peer that never finished closing ends the stream the way a TCP
                // reset would (RFC 8441 section 5.1): RST_STREAM CANCEL instead of END_STREAM.
                context.Features.Get<IHttpResetFeature>()?.Reset(Http2Cancel);
            }
        }
        finally
        {
            registry.Remove(channel);
        }
    }

    private const int Http2Cancel = 0x8;

    private static async Task RefuseAsync(HttpContext context, HandshakeFailure failure, bool multiplexed)
    {
        HttpResponse response = context.Response;
        response.StatusCode = failure.StatusCode;
        if (!multiplexed)
        {
            // Connection-specific fields are not allowed over HTTP/2 and HTTP/3; there, only the stream ends.
            response.Headers.Connection = "close";
        }

        if (failure.NeedsVersionHeader || failure.StatusCode == 426)
        {
            response.Headers["Sec-WebSocket-Version"] = "13";
            if (!multiplexed)
            {
                response.Headers.Upgrade = "websocket";
            }
        }
        else if (failure.StatusCode == 405)
        {
            response.Headers.Allow = "GET";
        }

        response.ContentType = "text/plain; charset=utf-8";
        await response.WriteAsync(failure.Message + "\n", Encoding.UTF8).ConfigureAwait(false);
    }

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket handshake at {Path} over {Protocol} refused with {Status}: {Reason}")]
    private static partial void LogRefused(ILogger logger, PathString path, string protocol, int status, string reason);

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket at {Path} open over {Protocol} (subprotocol {Subprotocol})")]
    private static partial void LogAccepted(ILogger logger, PathString path, string protocol, string? subprotocol);

    [LoggerMessage(Level = LogLevel.Error, Message = "WebSocket application at {Path} failed")]
    private static partial void LogFailed(ILogger logger, PathString path, Exception error);

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket at {Path} ended: status {Status}, violation {Violation}, timeout {Timeout}")]
    private static partial void LogClosed(ILogger logger, PathString path, ushort status, ProtocolViolation violation, SessionTimerResult? timeout, Exception? error);
}
