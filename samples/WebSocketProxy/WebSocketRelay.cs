using System.IO.Pipelines;
using System.Net.Sockets;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.WebSocketProxy;

/// <summary>Relays one websocket, byte for byte and without decoding frames, from a client (HTTP/1.1 or HTTP/2) to an
/// HTTP/1.1 backend: the backend's handshake comes first, so its subprotocol choice (or refusal) is the client's.</summary>
internal static class WebSocketRelay
{
    public static async Task RunAsync(WebSocketTunnel tunnel, Uri backend)
    {
        var target = new Uri(backend, tunnel.Context.Request.Path + tunnel.Context.Request.QueryString);
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        using var handshakeTimeout = CancellationTokenSource.CreateLinkedTokenSource(tunnel.Context.RequestAborted);
        handshakeTimeout.CancelAfter(TimeSpan.FromSeconds(10));
        string? subprotocol;
        StreamTransport backendPipe;
        try
        {
            await socket.ConnectAsync(target.Host, target.Port, handshakeTimeout.Token);
            backendPipe = new StreamTransport(new NetworkStream(socket, ownsSocket: false));
            var headers = new List<KeyValuePair<string, string>>
            {
                new("X-Forwarded-For", tunnel.Context.Connection.RemoteIpAddress?.ToString() ?? "unknown"),
                new("X-Forwarded-Proto", tunnel.Context.Request.Scheme),
            };
            if (tunnel.Request.Origin is { } origin)
            {
                headers.Add(new("Origin", origin));
            }

            var options = new WebSocketClientOptions { Subprotocols = tunnel.Request.Subprotocols, Headers = headers };
            subprotocol = await WebSocketClient.HandshakeAsync(backendPipe, target, options, handshakeTimeout.Token);
        }
        catch (WebSocketHandshakeException error)
        {
            // The backend's own refusal (404, 403...) is the client's; anything else is a bad gateway.
            int status = error.StatusCode is >= 400 and < 500 ? error.StatusCode.Value : 502;
            await tunnel.RefuseAsync(status, "The backend refused the websocket: " + error.Message);
            return;
        }
        catch (Exception error) when (error is SocketException or OperationCanceledException or IOException)
        {
            await tunnel.RefuseAsync(502, "The backend cannot be reached: " + error.Message);
            return;
        }

        Stream client = await tunnel.AcceptAsync(subprotocol);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(tunnel.Context.RequestAborted);
        try
        {
            // Upstream: the client's bytes straight to the backend socket; its end becomes the backend's FIN.
            Task upstream = RelayUpstreamAsync(client, socket, stop.Token);

            // Downstream: what the backend sent behind its 101, then the rest; its end ends the client's side.
            await backendPipe.Input.CopyToAsync(client, stop.Token);
            await client.FlushAsync(stop.Token);
            await stop.CancelAsync();
            await upstream.ContinueWith(static _ => { }, TaskScheduler.Default);
        }
        catch (Exception error) when (error is IOException or SocketException or OperationCanceledException)
        {
            tunnel.Abort(); // one side broke: reset the other, as a TCP relay would
        }
        finally
        {
            await backendPipe.Input.CompleteAsync();
        }
    }

    private static async Task RelayUpstreamAsync(Stream client, Socket backend, CancellationToken cancellationToken)
    {
        byte[] buffer = new byte[16 * 1024];
        int read;
        while ((read = await client.ReadAsync(buffer, cancellationToken)) > 0)
        {
            await backend.SendAsync(buffer.AsMemory(0, read), SocketFlags.None, cancellationToken);
        }

        backend.Shutdown(SocketShutdown.Send);
    }
}
