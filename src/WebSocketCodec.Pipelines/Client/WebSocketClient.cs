using System.Buffers;
using System.IO.Pipelines;
using System.Net.Security;
using System.Net.Sockets;

namespace WebSocketCodec.Pipelines;

/// <summary>Opens websockets over HTTP/1.1: the client to reach for to connect to a <c>ws://</c> or <c>wss://</c>
/// server. For many websockets over one HTTP/2 connection use <see cref="WebSocketHttp2Client"/>; to come back after a
/// lost connection, <see cref="ReconnectingWebSocket"/>.</summary>
/// <remarks>It does TCP (<see cref="Socket"/>), TLS for <c>wss</c> (<see cref="SslStream"/>), the upgrade request with
/// subprotocols and custom headers, an HTTP proxy's CONNECT tunnel when <see cref="WebSocketClientOptions.Proxy"/>
/// chooses one, and a strict check of the answer (101, Upgrade, Connection, <c>Sec-WebSocket-Accept</c>, only an
/// offered subprotocol, and no extension but permessage-deflate when offered). Frames the server sends right behind its
/// 101 stay in the pipe for the websocket. The websocket masks what it sends and refuses masked input.</remarks>
public static class WebSocketClient
{
    /// <summary>Connects and returns the websocket, not yet running: start it with
    /// <see cref="WebSocketConnection.RunAsync(Func{WebSocketFrameSender, IWebSocketFrameListener}, CancellationToken)"/> or wrap it in a
    /// <see cref="MessageWebSocket"/> or <see cref="PipeWebSocket"/>.</summary>
    /// <exception cref="WebSocketHandshakeException">The handshake failed or timed out.</exception>
    /// <exception cref="ArgumentException">A subprotocol to offer is not an HTTP token or is offered twice (checked
    /// before connecting).</exception>
    /// <exception cref="NotSupportedException">The proxy chosen for <paramref name="uri"/> is a SOCKS or HTTPS proxy
    /// (checked before connecting).</exception>
    public static async Task<WebSocketConnection> ConnectAsync(
        Uri uri, WebSocketClientOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(uri);
        options ??= WebSocketClientOptions.Default;
        options.Validate(); // a caller's mistake, not a failed handshake
        options.Deflate?.Validate();
        bool secure = uri.Scheme switch
        {
            "ws" => false,
            "wss" => true,
            _ => throw new ArgumentException("The URI scheme must be ws or wss.", nameof(uri)),
        };

        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(options.HandshakeTimeout);
        ProxyRoute? route = ProxyRoute.For(options.Proxy, uri); // a proxy we cannot use is refused before connecting
        Socket? socket = null;
        Stream? stream = null;
        try
        {
            socket = await ProxyTunnel.ConnectAsync(route, uri.IdnHost, uri.Port, deadline.Token).ConfigureAwait(false);
            stream = new NetworkStream(socket, ownsSocket: true);
            if (secure)
            {
                var tls = new SslStream(stream, leaveInnerStreamOpen: false);
                stream = tls;
                SslClientAuthenticationOptions authentication = ForHost(options.Tls, uri.IdnHost);
                await tls.AuthenticateAsClientAsync(authentication, deadline.Token).ConfigureAwait(false);
            }

            Socket owned = socket;
            var pipe = new StreamTransport(stream, abort: owned.Dispose); // a stuck write ends with the socket
            (string? subprotocol, DeflateParameters? deflate) = await NegotiateAsync(pipe, uri, options, deadline.Token).ConfigureAwait(false);
            var connection = new WebSocketConnection(pipe, WebSocketRole.Client, options.Session, subprotocol);
            if (deflate is { } parameters)
            {
                connection.EnablePerMessageDeflate(parameters, options.Deflate!);
            }

            return connection;
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            Dispose(socket, stream);
            string via = route is { } proxy ? $" through the proxy {ProxyRoute.Shown(proxy.Proxy)}" : "";
            throw new WebSocketHandshakeException($"The opening handshake with {uri}{via} did not finish within {options.HandshakeTimeout}.");
        }
        catch (Exception error) when (error is not WebSocketHandshakeException and not OperationCanceledException and not NotSupportedException)
        {
            Dispose(socket, stream);
            throw new WebSocketHandshakeException($"Could not connect to {uri}: {error.Message}", error);
        }
        catch
        {
            Dispose(socket, stream);
            throw;
        }
    }

    /// <summary>Connects and returns the message API, running.</summary>
    public static async Task<MessageWebSocket> ConnectMessagesAsync(
        Uri uri, WebSocketClientOptions? options = null, CancellationToken cancellationToken = default)
    {
        WebSocketConnection connection = await ConnectAsync(uri, options, cancellationToken).ConfigureAwait(false);
        return connection.RunMessages(options?.Session.Pool, cancellationToken: CancellationToken.None);
    }

    /// <summary>Runs the client's side of the opening handshake over a transport of your own. It offers no extension:
    /// permessage-deflate is negotiated by <see cref="ConnectAsync"/>.</summary>
    /// <returns>The subprotocol the server selected, if any.</returns>
    /// <exception cref="WebSocketHandshakeException">The server refused or answered wrongly.</exception>
    /// <exception cref="ArgumentException"><paramref name="options"/> asks for permessage-deflate.</exception>
    public static async Task<string?> HandshakeAsync(IDuplexPipe pipe, Uri uri, WebSocketClientOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Deflate is not null)
        {
            throw new ArgumentException("HandshakeAsync offers no extension; ConnectAsync negotiates permessage-deflate.", nameof(options));
        }

        return (await NegotiateAsync(pipe, uri, options, cancellationToken).ConfigureAwait(false)).Subprotocol;
    }

    /// <summary>The handshake, with permessage-deflate offered when the options ask for it.</summary>
    private static async Task<(string? Subprotocol, DeflateParameters? Deflate)> NegotiateAsync(
        IDuplexPipe pipe, Uri uri, WebSocketClientOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(pipe);
        ArgumentNullException.ThrowIfNull(uri);
        string key = WebSocketHandshake.CreateKey();
        IEnumerable<KeyValuePair<string, string>> headers = options.Deflate is { } offer
            ? options.Headers.Append(new("Sec-WebSocket-Extensions", PerMessageDeflateNegotiation.CreateOffer(offer)))
            : options.Headers;
        Http1Handshake.WriteRequest(pipe.Output, uri.Authority, uri.PathAndQuery, key, options.Subprotocols, headers);
        await pipe.Output.FlushAsync(cancellationToken).ConfigureAwait(false);
        while (true)
        {
            ReadResult result = await pipe.Input.ReadAsync(cancellationToken).ConfigureAwait(false);
            ReadOnlySequence<byte> buffer = result.Buffer;
            OperationStatus status = WebSocketServerHandshake.ParseHead(buffer, HttpHeadParser.DefaultMaxHeadLength, out HttpHead? head, out int headLength, out HttpHeadError error);
            if (status == OperationStatus.Done)
            {
                pipe.Input.AdvanceTo(buffer.GetPosition(headLength)); // frames behind the head stay for the websocket
                string? subprotocol = Http1Handshake.ValidateResponse(head!, key, options.Subprotocols, options.Deflate, out DeflateParameters? deflate);
                return (subprotocol, deflate);
            }

            pipe.Input.AdvanceTo(buffer.Start, buffer.End);
            if (status == OperationStatus.InvalidData)
            {
                throw new WebSocketHandshakeException($"The server's response head is malformed ({error}).");
            }

            if (result.IsCompleted)
            {
                throw new WebSocketHandshakeException("The server closed the connection during the opening handshake.");
            }
        }
    }

    private static void Dispose(Socket? socket, Stream? stream)
    {
        stream?.Dispose();
        socket?.Dispose();
    }

    /// <summary>The caller's TLS options with <c>TargetHost</c> defaulted to <paramref name="host"/>, in a copy: options
    /// shared by connections to several hosts (an Akka transport's) must not keep the first one's name.</summary>
    private static SslClientAuthenticationOptions ForHost(SslClientAuthenticationOptions? tls, string host)
    {
        if (tls?.TargetHost is not null)
        {
            return tls;
        }

        if (tls is null)
        {
            return new SslClientAuthenticationOptions { TargetHost = host };
        }

        return new SslClientAuthenticationOptions
        {
            TargetHost = host,
            AllowRenegotiation = tls.AllowRenegotiation,
            AllowTlsResume = tls.AllowTlsResume,
            ApplicationProtocols = tls.ApplicationProtocols,
            CertificateChainPolicy = tls.CertificateChainPolicy,
            CertificateRevocationCheckMode = tls.CertificateRevocationCheckMode,
            CipherSuitesPolicy = tls.CipherSuitesPolicy,
            ClientCertificateContext = tls.ClientCertificateContext,
            ClientCertificates = tls.ClientCertificates,
            EnabledSslProtocols = tls.EnabledSslProtocols,
            EncryptionPolicy = tls.EncryptionPolicy,
            LocalCertificateSelectionCallback = tls.LocalCertificateSelectionCallback,
            RemoteCertificateValidationCallback = tls.RemoteCertificateValidationCallback,
        };
    }
}
