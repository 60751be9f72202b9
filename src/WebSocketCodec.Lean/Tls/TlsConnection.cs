using System.Security.Cryptography.X509Certificates;
using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using WebSocketCodec.Lean.Loop;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Lean.Tls;

/// <summary>
/// A TLS connection accepted by a loop: the socket is handed to .NET's own socket engine under an
/// <see cref="SslStream"/>, and the websocket runs on the Pipelines host of the same driver (TLS records are decrypted
/// into the stream's buffers, so the loop's shared buffer has nothing to offer there). The handshake is the loop's:
/// the same head parser, the same decision, the same cap.
/// </summary>
internal static class TlsConnection
{
    public static async Task ServeAsync(LeanServerCore server, int fd, IPEndPoint? remote)
    {
        server.OnConnectionOpened();
        try
        {
            await ServeCoreAsync(server, fd, remote).ConfigureAwait(false);
        }
        finally
        {
            server.OnConnectionClosed();
        }
    }

    private static async Task ServeCoreAsync(LeanServerCore server, int fd, IPEndPoint? remote)
    {
        await Task.Yield(); // off the loop
        var handle = new SafeSocketHandle(fd, ownsHandle: true); // closes the descriptor once, whatever happens
        Socket socket;
        try
        {
            socket = new Socket(handle) { NoDelay = true };
        }
        catch (Exception error)
        {
            handle.Dispose();
            server.ReportConnectionFailure(error);
            return;
        }

        var ssl = new SslStream(new NetworkStream(socket, ownsSocket: true), leaveInnerStreamOpen: false);
        try
        {
            using (var deadline = new CancellationTokenSource(server.Accept.HandshakeTimeout))
            {
                await ssl.AuthenticateAsServerAsync(server.TlsOptions!, deadline.Token).ConfigureAwait(false);
            }

            // Left open by the pipes (a completed writer would dispose the stream, closing both directions where a
            // violation's end must close ours alone): disposed below, when the websocket has ended.
            var transport = new StreamTransport(
                ssl,
                leaveOpen: true,
                endOutput: () => EndOutputAsync(ssl, socket),
                abort: socket.Dispose);
            await RunAsync(server, transport, remote, ssl.RemoteCertificate as X509Certificate2).ConfigureAwait(false);
        }
        catch (Exception error) when (error is IOException or OperationCanceledException or SocketException
            or System.Security.Authentication.AuthenticationException or ObjectDisposedException)
        {
            // A client that failed its TLS handshake, or left: nothing to answer.
        }
        catch (Exception error)
        {
            server.ReportConnectionFailure(error);
        }
        finally
        {
            await ssl.DisposeAsync().ConfigureAwait(false);
        }
    }

    private static async Task RunAsync(LeanServerCore server, StreamTransport transport, IPEndPoint? remote, X509Certificate2? clientCertificate)
    {
        HttpHead? head;
        try
        {
            head = await ReadHeadAsync(transport.Input, server.Accept).ConfigureAwait(false);
        }
        catch (HandshakeRefused refused)
        {
            await WebSocketServerHandshake.RefuseAsync(transport, null, refused.Failure).ConfigureAwait(false);
            return;
        }

        if (head is null)
        {
            return;
        }

        WebSocketAcceptDecision decision = server.Decide(head, out bool admitted);
        try
        {
            if (!decision.IsAccepted)
            {
                await WebSocketServerHandshake.RefuseAsync(transport, head.Target, decision.Failure).ConfigureAwait(false);
                return;
            }

            using var websocket = new WebSocketConnection(transport, WebSocketRole.Server, server.Session, decision.Subprotocol);
            if (decision.Deflate is { } deflate)
            {
                websocket.EnablePerMessageDeflate(deflate, server.Accept.Deflate!);
            }

            // The 101 first: a frame the application sends from the factory goes out behind it.
            Http1Handshake.WriteResponse(transport.Output, decision);
            await transport.Output.FlushAsync().ConfigureAwait(false);
            IWebSocketFrameListener listener;
            try
            {
                listener = server.CreateListener(new LeanWebSocketRequest(head, decision, remote, isSecure: true) { ClientCertificate = clientCertificate }, websocket.Sender);
            }
            catch (Exception error)
            {
                // Accepted already: the websocket is closed with 1011 instead (its frames discarded meanwhile).
                server.ReportConnectionFailure(error);
                await websocket.CloseAsync(CloseStatus.InternalError, "The server failed to accept the websocket.").ConfigureAwait(false);
                return;
            }

            server.TrackTls(websocket.Driver);
            try
            {
                await websocket.RunAsync(listener).ConfigureAwait(false);
            }
            finally
            {
                server.UntrackTls(websocket.Driver);
            }
        }
        finally
        {
            server.Leave(admitted);
        }
    }

    /// <summary>Reads the request head within the handshake's time and size bounds; refuses a bad or late one.</summary>
    private static async Task<HttpHead?> ReadHeadAsync(PipeReader input, WebSocketAcceptOptions accept)
    {
        using var deadline = new CancellationTokenSource(accept.HandshakeTimeout);
        try
        {
            while (true)
            {
                ReadResult result = await input.ReadAsync(deadline.Token).ConfigureAwait(false);
                ReadOnlySequence<byte> buffer = result.Buffer;
                OperationStatus status = HttpHeadParser.TryParse(buffer, out HttpHead? head, out int length, out HttpHeadError error, accept.MaxRequestHeadLength);
                if (status == OperationStatus.Done)
                {
                    input.AdvanceTo(buffer.GetPosition(length));
                    return head;
                }

                input.AdvanceTo(buffer.Start, buffer.End);
                if (status == OperationStatus.InvalidData)
                {
                    throw new HandshakeRefused(HandshakeFailure.From(error));
                }

                if (result.IsCompleted)
                {
                    return null;
                }
            }
        }
        catch (OperationCanceledException)
        {
            throw new HandshakeRefused(new HandshakeFailure(408, "No complete request head in time."));
        }
    }

    private static async ValueTask EndOutputAsync(SslStream ssl, Socket socket)
    {
        try
        {
            await ssl.ShutdownAsync().ConfigureAwait(false); // close_notify, then our FIN
        }
        catch (Exception error) when (error is not OutOfMemoryException)
        {
            // Gone already, or OpenSSL refused the close_notify: on Linux, SSL_shutdown while the peer's records arrive
            // (its Close answer) fails now and then with its own exceptions ("wrong version number", error 5), which
            // are not IOExceptions. The FIN below still ends our side.
        }

        try
        {
            socket.Shutdown(SocketShutdown.Send);
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException)
        {
            // Gone already.
        }
    }

    private sealed class HandshakeRefused(HandshakeFailure failure) : Exception(failure.Message)
    {
        public HandshakeFailure Failure { get; } = failure;
    }
}
