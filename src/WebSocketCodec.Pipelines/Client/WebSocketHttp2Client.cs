using System.Globalization;
using System.Net;
using System.Net.Security;

namespace WebSocketCodec.Pipelines;

/// <summary>Websockets over HTTP/2 (RFC 8441 extended CONNECT) through <see cref="SocketsHttpHandler"/>: reach for it
/// to open many websockets over one connection, one stream each, since every websocket opened through the same
/// <see cref="HttpMessageInvoker"/> shares its HTTP/2 connection. A server that does not take websockets over HTTP/2
/// fails the handshake: connect with <see cref="WebSocketClient"/> instead.</summary>
/// <remarks>It connects in cleartext with prior knowledge (<c>ws://</c>) or over TLS with ALPN h2 (<c>wss://</c>),
/// directly or through an HTTP proxy (<see cref="CreateHandler(WebSocketClientOptions)"/>).</remarks>
public static class WebSocketHttp2Client
{
    /// <summary>A handler that keeps every websocket on one HTTP/2 connection per server (up to the server's stream
    /// limit), with optional TLS options (e.g. a certificate check of your own). It connects directly: no proxy, not
    /// even the environment's (<see cref="CreateHandler(WebSocketClientOptions)"/> takes one).</summary>
    public static SocketsHttpHandler CreateHandler(SslClientAuthenticationOptions? tls = null) => new()
    {
        EnableMultipleHttp2Connections = false,
        SslOptions = tls ?? new SslClientAuthenticationOptions(),
        PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
        AllowAutoRedirect = false,
        UseCookies = false,
        UseProxy = false,
    };

    /// <summary>A handler as <see cref="CreateHandler(SslClientAuthenticationOptions?)"/>, with the TLS options (a
    /// client certificate, a certificate check) and the proxy of <paramref name="options"/>: through an HTTP proxy
    /// each HTTP/2 connection is an HTTP CONNECT tunnel (for <c>ws://</c> prior knowledge as for <c>wss://</c>), with the
    /// proxy's Basic credentials; a proxy's refusal fails the websocket's handshake with its status.</summary>
    public static SocketsHttpHandler CreateHandler(WebSocketClientOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        SocketsHttpHandler handler = CreateHandler(options.Tls);
        if (options.Proxy is { } proxy)
        {
            handler.ConnectCallback = async (context, cancellationToken) =>
            {
                Uri server = context.InitialRequestMessage.RequestUri!;
                ProxyRoute? route = ProxyRoute.For(proxy, server);
                System.Net.Sockets.Socket socket = await ProxyTunnel.ConnectAsync(route, context.DnsEndPoint.Host, context.DnsEndPoint.Port, cancellationToken).ConfigureAwait(false);
                return new System.Net.Sockets.NetworkStream(socket, ownsSocket: true);
            };
        }

        return handler;
    }

    /// <summary>Opens a websocket on a new stream of <paramref name="invoker"/>'s HTTP/2 connection and returns it,
    /// not yet running.</summary>
    /// <exception cref="WebSocketHandshakeException">The server refused (with its status), does not accept
    /// websockets over HTTP/2, chose a subprotocol that was not offered, answered an extension that was not offered
    /// or a permessage-deflate offer wrongly, or the handshake timed out.</exception>
    /// <exception cref="ArgumentException">A subprotocol to offer is not an HTTP token or is offered twice (checked
    /// before the request is sent).</exception>
    public static async Task<WebSocketConnection> ConnectAsync(
        HttpMessageInvoker invoker, Uri uri, WebSocketClientOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(invoker);
        ArgumentNullException.ThrowIfNull(uri);
        options ??= WebSocketClientOptions.Default;
        Uri target = uri.Scheme switch
        {
            "ws" or "http" => new UriBuilder(uri) { Scheme = "http" }.Uri,
            "wss" or "https" => new UriBuilder(uri) { Scheme = "https" }.Uri,
            _ => throw new ArgumentException("The URI scheme must be ws or wss.", nameof(uri)),
        };

        using var request = new HttpRequestMessage(HttpMethod.Connect, target)
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
        request.Headers.Protocol = "websocket";
        request.Headers.TryAddWithoutValidation("sec-websocket-version", "13");
        options.Validate();
        if (options.Subprotocols.Count > 0)
        {
            request.Headers.TryAddWithoutValidation("sec-websocket-protocol", string.Join(", ", options.Subprotocols));
        }

        if (options.Deflate is { } offer)
        {
            offer.Validate();
            request.Headers.TryAddWithoutValidation("sec-websocket-extensions", PerMessageDeflateNegotiation.CreateOffer(offer));
        }

        foreach ((string name, string value) in options.Headers)
        {
            request.Headers.TryAddWithoutValidation(name, value);
        }

        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(options.HandshakeTimeout);
        HttpResponseMessage response;
        try
        {
            response = await invoker.SendAsync(request, deadline.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new WebSocketHandshakeException($"The opening handshake with {uri} over HTTP/2 did not finish within {options.HandshakeTimeout}.");
        }
        catch (HttpRequestException error) when (error.HttpRequestError == HttpRequestError.ExtendedConnectNotSupported)
        {
            throw new WebSocketHandshakeException(
                $"{target.Authority} does not accept websockets over HTTP/2: it did not advertise SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441). Connect over HTTP/1.1 instead.", error);
        }
        catch (HttpRequestException error) when (ExceptionCause.Find<WebSocketHandshakeException>(error) is { } proxyRefusal)
        {
            throw proxyRefusal; // the proxy's answer, with its status
        }
        catch (HttpRequestException error) when (ExceptionCause.Find<NotSupportedException>(error) is { } unsupported)
        {
            throw unsupported; // a SOCKS or HTTPS proxy
        }
        catch (Exception error) when (error is HttpRequestException or IOException or System.Security.Authentication.AuthenticationException)
        {
            // IOException: HttpIOException, when the server ends the connection before the HTTP/2 preface (e.g. after
            // refusing our client certificate in the TLS handshake).
            throw new WebSocketHandshakeException($"Could not open a websocket over HTTP/2 to {uri}: {error.Message}", error);
        }

        try
        {
            string? subprotocol = CheckResponse(response, options, uri, out DeflateParameters? deflate);
            Stream stream = await response.Content.ReadAsStreamAsync(deadline.Token).ConfigureAwait(false);
            var connection = new WebSocketConnection(
                new StreamTransport(stream, abort: response.Dispose), WebSocketRole.Client, options.Session, subprotocol); // an abort resets the stream
            if (deflate is { } parameters)
            {
                connection.EnablePerMessageDeflate(parameters, options.Deflate!);
            }

            return connection;
        }
        catch
        {
            response.Dispose(); // an open stream is reset
            throw;
        }
    }

    /// <summary>Opens a websocket over HTTP/2 and returns the message API, running.</summary>
    public static async Task<MessageWebSocket> ConnectMessagesAsync(
        HttpMessageInvoker invoker, Uri uri, WebSocketClientOptions? options = null, CancellationToken cancellationToken = default)
    {
        WebSocketConnection connection = await ConnectAsync(invoker, uri, options, cancellationToken).ConfigureAwait(false);
        return connection.RunMessages(options?.Session.Pool, cancellationToken: CancellationToken.None);
    }

    private static string? CheckResponse(HttpResponseMessage response, WebSocketClientOptions options, Uri uri, out DeflateParameters? deflate)
    {
        try
        {
            return ExtendedConnectResponse.Validate(
                ((int)response.StatusCode).ToString(CultureInfo.InvariantCulture), response.ReasonPhrase, endStream: false,
                response.Headers.TryGetValues("sec-websocket-protocol", out IEnumerable<string>? protocols) ? [.. protocols] : [],
                response.Headers.TryGetValues("sec-websocket-extensions", out IEnumerable<string>? extensions) ? [.. extensions] : [],
                options, uri.ToString(), out deflate);
        }
        catch (WebSocketHandshakeException refused) when (refused.StatusCode is int status
            && response.Headers.TryGetValues("Retry-After", out IEnumerable<string>? retryAfter))
        {
            // The same reading of Retry-After as over HTTP/1.1 (RetryAfterHeader), from the field's text.
            throw new WebSocketHandshakeException(refused.Message, status)
            {
                RetryAfter = RetryAfterHeader.Parse(string.Join(", ", retryAfter), DateTimeOffset.UtcNow),
            };
        }
    }
}
