using System.Diagnostics;
using System.Net;
using System.Net.Security;
using DotNetty.Codecs.Http2;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Bootstrapping;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Sockets;

namespace WebSocketCodec.SpanNetty;

/// <summary>One HTTP/2 connection that websockets are opened on (RFC 8441), one stream each: reach for it in a
/// SpanNetty application that opens websockets to one server over one connection, cleartext with prior knowledge
/// (<c>ws://</c>) or TLS with ALPN h2 (<c>wss://</c>). Over HTTP/1.1 use
/// <see cref="WebSocketClientUpgradeHandler"/>.</summary>
/// <remarks>The pipeline is SpanNetty's <c>Http2FrameCodec</c> (client) and <c>Http2MultiplexHandler</c>;
/// <see cref="OpenAsync"/> waits for the server's SETTINGS (a server that does not enable the extended CONNECT is
/// refused clearly), opens a stream with <c>Http2StreamChannelBootstrap</c>, sends the extended CONNECT and checks the
/// answer, then runs a client-role <see cref="WebSocketChannelHandler"/> on the stream's bytes through an
/// <see cref="Http2StreamByteAdapter"/>. Disposing sends GOAWAY and closes the connection (websockets still open on it
/// are aborted).</remarks>
public sealed class Http2WebSocketClient : IAsyncDisposable
{
    private static readonly AsciiString ProtocolName = AsciiString.Cached(":protocol");
    private static readonly AsciiString WebSocketProtocol = AsciiString.Cached("websocket");
    private static readonly AsciiString Connect = AsciiString.Cached("CONNECT");

    private readonly Http2ClientConnectionHandler _connection;
    private readonly Http2WebSocketClientOptions _options;
    private readonly AsciiString _scheme;
    private readonly string _authority;

    private Http2WebSocketClient(IChannel channel, Http2ClientConnectionHandler connection, Uri server, Http2WebSocketClientOptions options)
    {
        Channel = channel;
        _connection = connection;
        _options = options;
        bool tls = server.Scheme is "wss" or "https";
        _scheme = AsciiString.Cached(tls ? "https" : "http");
        bool defaultPort = server.IsDefaultPort || server.Port == (tls ? 443 : 80);
        string host = server.HostNameType == UriHostNameType.IPv6 ? $"[{server.IdnHost}]" : server.IdnHost;
        _authority = defaultPort ? host : $"{host}:{server.Port}";
    }

    /// <summary>The connection's channel.</summary>
    public IChannel Channel { get; }

    /// <summary>Appends the HTTP/2 client handlers to a connection's pipeline (after TLS with ALPN h2, if any) and
    /// returns the client, for a connection you bootstrap yourself.</summary>
    /// <param name="pipeline">The connection's pipeline.</param>
    /// <param name="server">The server's URI (<c>ws://</c> or <c>wss://</c>): its scheme and authority are each
    /// request's <c>:scheme</c> and <c>:authority</c>.</param>
    /// <param name="options">Windows and timeouts of the connection.</param>
    public static Http2WebSocketClient Configure(IChannelPipeline pipeline, Uri server, Http2WebSocketClientOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(pipeline);
        CheckUri(server);
        options ??= Http2WebSocketClientOptions.Default;
        options.Validate();
        var settings = new Http2Settings();
        settings.PushEnabled(false);
        settings.InitialWindowSize(options.StreamWindowSize);
        Http2FrameCodec codec = new Http2FrameCodecBuilder(isServer: false)
        {
            InitialSettings = settings,
            GracefulShutdownTimeout = TimeSpan.Zero, // closing the connection aborts the streams still open
        }.Build();
        var connection = new Http2ClientConnectionHandler(options.ConnectionWindowSize);
        Http2WriteCoalescer.AddTo(pipeline); // see there: SpanNetty's transports and a flush inside a finished write
        if (pipeline.Get<SslStreamHandler>() is not null)
        {
            pipeline.AddLast("http2-write-on-flush", new Http2WriteOnFlushHandler()); // see there: SpanNetty's child flushes
        }

        pipeline.AddLast("http2", codec);
        pipeline.AddLast("http2-stream1-window", new Http2StreamOneWindowHandler(codec));
        pipeline.AddLast("http2-multiplex", new Http2MultiplexHandler(new ActionChannelInitializer<IChannel>(static _ => { }))); // no push
        pipeline.AddLast("http2-websockets", connection);
        return new Http2WebSocketClient(pipeline.Channel, connection, server, options);
    }

    /// <summary>Connects to <paramref name="server"/> on <paramref name="group"/> (TCP; TLS with ALPN h2 for
    /// <c>wss://</c>) and waits for the server's SETTINGS, all within <see cref="Http2WebSocketClientOptions.ConnectTimeout"/>.</summary>
    /// <param name="group">The event loops (keep them running until the client is disposed).</param>
    /// <param name="server">The server's URI, <c>ws://</c> or <c>wss://</c> (its path is not used).</param>
    /// <param name="options">TLS, windows and timeouts of the connection.</param>
    /// <param name="cancellationToken">Stops connecting.</param>
    /// <exception cref="WebSocketHandshakeException">TLS did not settle on h2, the server's SETTINGS did not come in
    /// time, or they do not enable the extended CONNECT (SETTINGS_ENABLE_CONNECT_PROTOCOL).</exception>
    public static async Task<Http2WebSocketClient> ConnectAsync(
        IEventLoopGroup group, Uri server, Http2WebSocketClientOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(group);
        CheckUri(server);
        options ??= Http2WebSocketClientOptions.Default;
        options.Validate();
        var started = Stopwatch.StartNew();
        bool tls = server.Scheme is "wss" or "https";
        SslStreamHandler? ssl = tls ? SslStreamHandler.Client(TlsOptions(server, options.Tls), options.ConnectTimeout) : null;
        Http2WebSocketClient? client = null;
        EndPoint endPoint = IPAddress.TryParse(server.Host, out IPAddress? address)
            ? new IPEndPoint(address, server.Port)
            : new DnsEndPoint(server.IdnHost, server.Port);
        IChannel channel = await new Bootstrap()
            .Group(group)
            .Channel<TcpSocketChannel>()
            .Option(ChannelOption.TcpNodelay, true)
            .Handler(new ActionChannelInitializer<IChannel>(channel =>
            {
                if (ssl is not null)
                {
                    channel.Pipeline.AddLast("tls", ssl);
                }

                client = Configure(channel.Pipeline, server, options);
            }))
            .ConnectAsync(endPoint).WaitAsync(options.ConnectTimeout, cancellationToken).ConfigureAwait(false);
        try
        {
            if (ssl is not null)
            {
                SslApplicationProtocol protocol = await ssl.HandshakeCompletion.WaitAsync(Remaining(options.ConnectTimeout, started), cancellationToken).ConfigureAwait(false);
                if (protocol != SslApplicationProtocol.Http2)
                {
                    throw new WebSocketHandshakeException($"{server.Authority} did not choose h2 with ALPN ('{protocol}'): it does not serve HTTP/2 over TLS.");
                }
            }

            await client!.WaitForSettingsAsync(Remaining(options.ConnectTimeout, started), cancellationToken).ConfigureAwait(false);
            return client;
        }
        catch (Exception error)
        {
            await channel.CloseAsync().ConfigureAwait(false);
            if (error is TimeoutException)
            {
                throw new WebSocketHandshakeException($"Connecting to {server.Authority} over HTTP/2 did not finish within {options.ConnectTimeout.TotalSeconds:0.#} s.", error);
            }

            throw;
        }
    }

    /// <summary>Opens a websocket at <paramref name="pathAndQuery"/> on a new stream of this connection, within
    /// <see cref="WebSocketClientOptions.HandshakeTimeout"/>.</summary>
    /// <param name="pathAndQuery">The request's <c>:path</c>, e.g. <c>/chat?room=1</c>.</param>
    /// <param name="listenerFactory">The websocket's callbacks.</param>
    /// <param name="options">Subprotocols, header fields, permessage-deflate, the handshake timeout and the session's
    /// limits (its <c>Tls</c> is not used: TLS is the connection's).</param>
    /// <param name="channel">How the websocket uses its stream's channel.</param>
    /// <param name="cancellationToken">Stops waiting (the stream is reset).</param>
    /// <exception cref="WebSocketHandshakeException">The server refused (with its status), does not enable the extended
    /// CONNECT, reset the stream, chose a subprotocol or an extension that was not offered, or did not answer in time.</exception>
    /// <exception cref="ArgumentException">A subprotocol is not a token or is offered twice, or a header field is not
    /// one an HTTP/2 request may carry.</exception>
    public async Task<Http2ClientWebSocket> OpenAsync(
        string pathAndQuery, Func<WebSocketFrameSender, IWebSocketFrameListener> listenerFactory, WebSocketClientOptions? options = null,
        WebSocketChannelHandlerOptions? channel = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(pathAndQuery);
        ArgumentNullException.ThrowIfNull(listenerFactory);
        if (pathAndQuery[0] != '/')
        {
            throw new ArgumentException("The path must start with '/'.", nameof(pathAndQuery));
        }

        options ??= WebSocketClientOptions.Default;
        Subprotocols.ValidateOffer(options.Subprotocols, nameof(options));
        options.Deflate?.Validate();
        IHttp2Headers request = Request(pathAndQuery, options);
        var started = Stopwatch.StartNew();
        await WaitForSettingsAsync(options.HandshakeTimeout, cancellationToken).ConfigureAwait(false);
        if (_connection.GoAway is { } goAway)
        {
            // After a GOAWAY the server takes no new stream: refuse here rather than have SpanNetty reset it later.
            throw new WebSocketHandshakeException($"The HTTP/2 connection to {_authority} takes no new websocket: {goAway}.");
        }

        if (!Channel.IsActive)
        {
            throw new WebSocketHandshakeException($"The HTTP/2 connection to {_authority} is closed.");
        }

        string target = $"{_scheme}://{_authority}{pathAndQuery}";
        var handshake = new Http2WebSocketClientHandshake(
            request, target, listenerFactory, options, channel ?? WebSocketChannelHandlerOptions.Default,
            Remaining(options.HandshakeTimeout, started), _options.EndStreamTimeout);
        IHttp2StreamChannel stream;
        try
        {
            stream = await new Http2StreamChannelBootstrap(Channel).Handler(handshake).OpenAsync().ConfigureAwait(false);
        }
        catch (Exception error)
        {
            throw new WebSocketHandshakeException($"No stream could be opened on the HTTP/2 connection to {_authority}: {error.Message}", error);
        }

        try
        {
            WebSocketChannelHandler websocket = await handshake.Completion.WaitAsync(cancellationToken).ConfigureAwait(false);
            return new Http2ClientWebSocket(websocket, stream);
        }
        catch (OperationCanceledException)
        {
            _ = stream.CloseAsync(); // resets the stream if it is still open
            throw;
        }
    }

    /// <summary>Sends GOAWAY and closes the connection; websockets still open on it are aborted.</summary>
    public Task CloseAsync() => Channel.IsOpen ? Channel.CloseAsync() : Channel.CloseCompletion;

    /// <inheritdoc />
    public async ValueTask DisposeAsync() => await CloseAsync().ConfigureAwait(false);

    private async Task WaitForSettingsAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        bool enabled;
        try
        {
            enabled = await _connection.Settings.WaitAsync(timeout, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException error)
        {
            throw new WebSocketHandshakeException($"{_authority} did not send its HTTP/2 SETTINGS within {timeout.TotalSeconds:0.#} s.", error);
        }

        if (!enabled)
        {
            throw new WebSocketHandshakeException(
                $"{_authority} does not accept websockets over HTTP/2: its SETTINGS do not enable the extended CONNECT (SETTINGS_ENABLE_CONNECT_PROTOCOL = 1, RFC 8441 §3). Connect over HTTP/1.1 instead.");
        }
    }

    private DefaultHttp2Headers Request(string pathAndQuery, WebSocketClientOptions options)
    {
        // Not validated by SpanNetty: its name check refuses the :protocol pseudo-header.
        var headers = new DefaultHttp2Headers(validate: false)
        {
            Method = Connect,
            Scheme = _scheme,
            Authority = new AsciiString(_authority),
            Path = new AsciiString(pathAndQuery),
        };
        headers.Set(ProtocolName, WebSocketProtocol);
        headers.Set(AsciiString.Cached("sec-websocket-version"), AsciiString.Cached("13"));
        if (options.Subprotocols.Count > 0)
        {
            headers.Set(AsciiString.Cached("sec-websocket-protocol"), new AsciiString(string.Join(", ", options.Subprotocols)));
        }

        if (options.Deflate is { } offer)
        {
            headers.Set(AsciiString.Cached("sec-websocket-extensions"), new AsciiString(PerMessageDeflateNegotiation.CreateOffer(offer)));
        }

        foreach ((string name, string value) in options.Headers)
        {
            string lower = name.ToLowerInvariant();
            if (!HttpToken.IsToken(name) || lower is "host" or "connection" or "keep-alive" or "proxy-connection" or "transfer-encoding" or "upgrade" or "te")
            {
                throw new ArgumentException($"The header field '{name}' is not one an HTTP/2 websocket request carries.", nameof(options));
            }

            headers.Add(new AsciiString(lower), new AsciiString(value));
        }

        return headers;
    }

    private static SslClientAuthenticationOptions TlsOptions(Uri server, SslClientAuthenticationOptions? given)
    {
        var tls = new SslClientAuthenticationOptions
        {
            TargetHost = given?.TargetHost ?? server.IdnHost,
            ApplicationProtocols = [SslApplicationProtocol.Http2],
        };
        if (given is not null)
        {
            tls.RemoteCertificateValidationCallback = given.RemoteCertificateValidationCallback;
            tls.ClientCertificates = given.ClientCertificates;
            tls.LocalCertificateSelectionCallback = given.LocalCertificateSelectionCallback;
            tls.EnabledSslProtocols = given.EnabledSslProtocols;
            tls.CertificateRevocationCheckMode = given.CertificateRevocationCheckMode;
            tls.CertificateChainPolicy = given.CertificateChainPolicy;
        }

        return tls;
    }

    private static TimeSpan Remaining(TimeSpan timeout, Stopwatch started)
    {
        TimeSpan left = timeout - started.Elapsed;
        return left > TimeSpan.Zero ? left : TimeSpan.FromMilliseconds(1);
    }

    private static void CheckUri(Uri server)
    {
        ArgumentNullException.ThrowIfNull(server);
        if (!server.IsAbsoluteUri || server.Scheme is not ("ws" or "wss" or "http" or "https"))
        {
            throw new ArgumentException("The URI must be absolute: ws://, wss://, http:// or https://.", nameof(server));
        }
    }
}
