using System.Diagnostics;
using System.Net.Security;
using System.Net.WebSockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.Http2Clients;

/// <summary>What <see cref="EchoLoad.RunAsync"/> did: websockets opened, messages sent and echoed back intact, and
/// how many times a websocket was lost and came back.</summary>
public sealed record EchoLoadResult(int WebSockets, int Connections, long Sent, long Echoed, TimeSpan Elapsed, int Reconnects = 0);

/// <summary>Opens N websockets over one HTTP/2 connection (extended CONNECT through <c>SocketsHttpHandler</c>), each a
/// <see cref="ReconnectingWebSocket"/> on the same <see cref="HttpMessageInvoker"/>, sends M messages on each, checks
/// every echo and closes them all. A websocket lost midway comes back on a new stream (all of them on one new
/// connection when the connection was lost); an attempt refused for good, or a server away for five attempts, fails
/// the run with the handshake's error.</summary>
public static class EchoLoad
{
    /// <summary>How long an echo is waited for: a message written to a websocket whose connection then died is not
    /// sent again (delivery is at most once), so its echo never comes; that websocket stops there, its echo missing
    /// from the count.</summary>
    public static readonly TimeSpan EchoTimeout = TimeSpan.FromSeconds(30);

    public static async Task<EchoLoadResult> RunAsync(
        Uri url, int webSockets, int messages, int size, bool trustAnyCertificate, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(url);
        var tls = new SslClientAuthenticationOptions();
        if (trustAnyCertificate)
        {
            tls.RemoteCertificateValidationCallback = (_, _, _, _) => true;
        }

        WebSocketClientOptions client = WebSocketClientOptions.Default with { Tls = tls };
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(client));
        var options = new ReconnectingWebSocketOptions
        {
            Client = client,
            Http2 = invoker, // every websocket a stream of the invoker's one connection
            Backoff = ReconnectBackoff.Default with { MaxAttempts = 5 },
        };
        var stopwatch = Stopwatch.StartNew();
        ReconnectingWebSocket[] sockets = [.. Enumerable.Range(0, webSockets).Select(_ => new ReconnectingWebSocket(url, options))];
        long sent = 0, echoed = 0;
        try
        {
            await Task.WhenAll(sockets.Select(socket => socket.StartAsync(cancellationToken)));
            await Task.WhenAll(sockets.Select(async (socket, index) =>
            {
                byte[] payload = new byte[size];
                for (int m = 0; m < messages; m++)
                {
                    payload.AsSpan().Fill((byte)(index + m));
                    await socket.SendAsync(payload, WebSocketMessageType.Binary, cancellationToken); // written, or queued for the next websocket
                    Interlocked.Increment(ref sent);
                    using WebSocketMessage? echo = await ReceiveEchoAsync(socket, cancellationToken);
                    if (echo is null)
                    {
                        break; // stopped, or the echo was lost with its connection
                    }

                    if (echo.Payload.Span.SequenceEqual(payload))
                    {
                        Interlocked.Increment(ref echoed);
                    }
                }

                await socket.CloseAsync(CloseStatus.NormalClosure, "done", cancellationToken);
            }));
        }
        finally
        {
            foreach (ReconnectingWebSocket socket in sockets)
            {
                await socket.DisposeAsync();
            }
        }

        // EnableMultipleHttp2Connections is off: every stream shares one connection.
        return new EchoLoadResult(webSockets, 1, sent, echoed, stopwatch.Elapsed, sockets.Sum(socket => Math.Max(0, socket.Connections - 1)));
    }

    /// <summary>The next message, or null when the client stopped or none came within <see cref="EchoTimeout"/>.</summary>
    private static async Task<WebSocketMessage?> ReceiveEchoAsync(ReconnectingWebSocket socket, CancellationToken cancellationToken)
    {
        using var wait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        wait.CancelAfter(EchoTimeout);
        try
        {
            return await socket.ReceiveAsync(wait.Token);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return null;
        }
    }
}
