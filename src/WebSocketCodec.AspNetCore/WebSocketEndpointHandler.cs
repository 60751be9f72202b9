using System.IO.Pipelines;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Logging;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The request delegate of a websocket endpoint: strict validation of an HTTP/1.1 upgrade or an HTTP/2 (or
/// HTTP/3) extended CONNECT, then the Pipelines websocket on the stream Kestrel's upgrade or accept returns.</summary>
internal sealed partial class WebSocketEndpointHandler(
    WebSocketAcceptOptions options, Func<HttpContext, WebSocketConnection, Task> application, WebSocketRegistry registry, ILogger logger)
{
    public async Task HandleAsync(HttpContext context)
    {
        await WebSocketAdmission.RunAsync(registry.Admission, overCap => HandleAsync(context, overCap)).ConfigureAwait(false);
    }

    private async Task HandleAsync(HttpContext context, bool overCap)
    {
        HttpRequest request = context.Request;
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(KestrelHandshake.Facts(context, overCap), options);
        if (!decision.IsAccepted)
        {
            LogRefused(logger, request.Path, request.Protocol, decision.StatusCode, decision.Failure.Message);
            await KestrelHandshake.RefuseAsync(context, decision).ConfigureAwait(false);
            return;
        }

        bool multiplexed = decision.IsMultiplexed;
        string? subprotocol = decision.Subprotocol;
        Stream stream = await KestrelHandshake.AcceptAsync(context, decision).ConfigureAwait(false);
        HttpResponse response = context.Response;
        // A peer that stopped reading is cut off: the connection (HTTP/1.1) or RST_STREAM (HTTP/2).
        IWebSocketPipeTransport transport;
        if (multiplexed)
        {
            transport = new StreamTransport(stream, leaveOpen: true, bufferSize: 32 * 1024, zeroByteReads: true, () => new ValueTask(response.CompleteAsync()), writesFlush: true, context.Abort);
        }
        else if (KestrelHandshake.UpgradedConnection(context) is { } pipe)
        {
            // Kestrel's own upgrade: the websocket reads and writes the connection's pipes, as the fast path does (no
            // stream adapter, no copy); half-closes through the socket after a violation.
            transport = new SocketHalfClose.ConnectionTransport(pipe, context.Features, context.Abort);
        }
        else
        {
            transport = new StreamTransport(stream, leaveOpen: true, bufferSize: 16 * 1024, zeroByteReads: true, endOutput: null, writesFlush: true, context.Abort);
            if (SocketHalfClose.For(context.Features) is { } halfClose)
            {
                // After a violation: our Close, then FIN through the connection's socket while the input drains.
                transport = new SocketHalfClose.UpgradedTransport((StreamTransport)transport, halfClose);
            }
        }

        using var connection = new WebSocketConnection(transport, WebSocketRole.Server, options.Session, subprotocol);
        if (decision.Deflate is { } parameters)
        {
            connection.EnablePerMessageDeflate(parameters, options.Deflate!);
        }

        // The connection's end or the client's RST_STREAM ends this websocket (and only this one) as the peer's end
        // does: Kestrel aborts the request at the client's FIN too, racing the read that sees it.
        using CancellationTokenRegistration aborted = context.RequestAborted.UnsafeRegister(
            static state => ((WebSocketConnection)state!).Driver.TransportLost(), connection);
        LogAccepted(logger, request.Path, request.Protocol, subprotocol);
        WebSocketCloseInfo info = await registry.RunAsync(
            connection, () => application(context, connection), error => LogFailed(logger, request.Path, error)).ConfigureAwait(false);
        LogClosed(logger, request.Path, info.Status, info.EndReason, info.Violation, info.Error);
        if (multiplexed && info.ReceivedStatus is null && (connection.Driver.TimedOut || info.Error is not null))
        {
            // An abort, a transport error or a peer that never finished closing ends the stream the way a TCP
            // reset would (RFC 8441 section 5.1): RST_STREAM CANCEL instead of END_STREAM. A peer that answered our
            // Close (after an idle timeout, say) finished the exchange: END_STREAM.
            KestrelHandshake.Abort(context, multiplexed);
        }
    }

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket handshake at {Path} over {Protocol} refused with {Status}: {Reason}")]
    private static partial void LogRefused(ILogger logger, PathString path, string protocol, int status, string reason);

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket at {Path} open over {Protocol} (subprotocol {Subprotocol})")]
    private static partial void LogAccepted(ILogger logger, PathString path, string protocol, string? subprotocol);

    [LoggerMessage(Level = LogLevel.Error, Message = "WebSocket application at {Path} failed")]
    private static partial void LogFailed(ILogger logger, PathString path, Exception error);

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket at {Path} ended: status {Status}, {EndReason}, violation {Violation}")]
    private static partial void LogClosed(ILogger logger, PathString path, CloseStatus status, WebSocketEndReason endReason, ProtocolViolation violation, Exception? error);
}
