using System.Diagnostics;
using System.Net.Security;
using System.Net.WebSockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.Http2Clients;

/// <summary>What <see cref="EchoLoad.RunAsync"/> did: websockets opened, messages sent and echoed back intact.</summary>
public sealed record EchoLoadResult(int WebSockets, int Connections, long Sent, long Echoed, TimeSpan Elapsed);

/// <summary>Opens N websockets over one HTTP/2 connection (extended CONNECT through <c>SocketsHttpHandler</c>), sends
/// M messages on each, checks every echo and closes them all.</summary>
public static class EchoLoad
{
    public static async Task<EchoLoadResult> RunAsync(
        Uri url, int webSockets, int messages, int size, bool trustAnyCertificate, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(url);
        var tls = new SslClientAuthenticationOptions();
        if (trustAnyCertificate)
        {
            tls.RemoteCertificateValidationCallback = (_, _, _, _) => true;
        }

        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(tls));
        var stopwatch = Stopwatch.StartNew();
        MessageWebSocket[] sockets = await Task.WhenAll(Enumerable.Range(0, webSockets)
            .Select(_ => WebSocketHttp2Client.ConnectMessagesAsync(invoker, url, cancellationToken: cancellationToken)));
        long sent = 0, echoed = 0;
        try
        {
            await Task.WhenAll(sockets.Select(async (socket, index) =>
            {
                byte[] payload = new byte[size];
                for (int m = 0; m < messages; m++)
                {
                    payload.AsSpan().Fill((byte)(index + m));
                    await socket.SendAsync(payload, WebSocketMessageType.Binary, cancellationToken);
                    Interlocked.Increment(ref sent);
                    using WebSocketMessage? echo = await socket.ReceiveAsync(cancellationToken);
                    if (echo is not null && echo.Payload.Span.SequenceEqual(payload))
                    {
                        Interlocked.Increment(ref echoed);
                    }
                }

                await socket.CloseAsync((CloseStatus)1000, "done", cancellationToken);
            }));
        }
        finally
        {
            foreach (MessageWebSocket socket in sockets)
            {
                await socket.DisposeAsync();
            }
        }

        // EnableMultipleHttp2Connections is off: every stream shares one connection.
        return new EchoLoadResult(webSockets, 1, sent, echoed, stopwatch.Elapsed);
    }
}
