using System.Buffers;
using System.Globalization;
using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>The client's side of the HTTP/1.1 opening handshake as the first handler of a SpanNetty pipeline (after
/// TLS, if any): add it to connect a channel to a <c>ws://</c> or <c>wss://</c> server over HTTP/1.1; over HTTP/2 use
/// <see cref="Http2WebSocketClient"/>. <see cref="Completion"/> reports the outcome.</summary>
/// <remarks>When the channel is active it sends the upgrade request, reads the response head within the size bound and
/// the handshake timeout, checks it strictly (101, the accept key, a subprotocol only from those offered, no extension
/// but permessage-deflate when <see cref="WebSocketClientOptions.Deflate"/> offered it), and puts a client-role
/// <see cref="WebSocketChannelHandler"/> in its own place, handing it any frames that came right behind the
/// 101.</remarks>
public sealed class WebSocketClientUpgradeHandler : ChannelHandlerAdapter
{
    private readonly Uri _uri;
    private readonly Func<WebSocketFrameSender, IWebSocketFrameListener> _listenerFactory;
    private readonly WebSocketClientOptions _options;
    private readonly WebSocketChannelHandlerOptions _channel;
    private readonly string _key = WebSocketHandshake.CreateKey();
    private readonly TaskCompletionSource<WebSocketChannelHandler> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private HeadAccumulator? _head;
    private IScheduledTask? _timeout;
    private bool _sent;
    private bool _done;

    /// <summary>Opens a websocket to <paramref name="uri"/> (<c>ws://</c> or <c>wss://</c>; the scheme only sets the
    /// default port in <c>Host</c>, TLS is the pipeline's).</summary>
    public WebSocketClientUpgradeHandler(
        Uri uri, Func<WebSocketFrameSender, IWebSocketFrameListener> listenerFactory, WebSocketClientOptions? options = null, WebSocketChannelHandlerOptions? channel = null)
    {
        ArgumentNullException.ThrowIfNull(uri);
        ArgumentNullException.ThrowIfNull(listenerFactory);
        if (!uri.IsAbsoluteUri || (uri.Scheme != "ws" && uri.Scheme != "wss"))
        {
            throw new ArgumentException("The URI must be absolute, ws:// or wss://.", nameof(uri));
        }

        _uri = uri;
        _listenerFactory = listenerFactory;
        _options = options ?? WebSocketClientOptions.Default;
        _options.Deflate?.Validate();
        _channel = channel ?? WebSocketChannelHandlerOptions.Default;
    }

    /// <summary>The websocket's handler once the server accepted; faults with <see cref="WebSocketHandshakeException"/>
    /// (with the server's status for a refusal) otherwise.</summary>
    public Task<WebSocketChannelHandler> Completion => _completion.Task;

    /// <inheritdoc />
    public override void HandlerAdded(IChannelHandlerContext context)
    {
        _head = new HeadAccumulator(HttpHeadParser.DefaultMaxHeadLength);
        _timeout = context.Executor.Schedule(
            static (state, ctx) => ((WebSocketClientUpgradeHandler)state).OnTimeout((IChannelHandlerContext)ctx), this, context, _options.HandshakeTimeout);
        if (context.Channel.IsActive)
        {
            SendRequest(context);
        }
    }

    /// <inheritdoc />
    public override void ChannelActive(IChannelHandlerContext context)
    {
        SendRequest(context);
        context.FireChannelActive();
    }

    /// <inheritdoc />
    public override void HandlerRemoved(IChannelHandlerContext context) => Release();

    /// <inheritdoc />
    public override void ChannelInactive(IChannelHandlerContext context)
    {
        Fail(context, new WebSocketHandshakeException("The connection closed before the server's answer."));
        Release();
        context.FireChannelInactive();
    }

    /// <inheritdoc />
    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception) =>
        Fail(context, new WebSocketHandshakeException("The connection failed during the handshake.", exception));

    /// <inheritdoc />
    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        OperationStatus status = HeadAccumulator.AppendRead(
            _done ? null : _head, message, context.Allocator, out HttpHead? head, out IByteBuffer? rest, out HttpHeadError error);
        if (status == OperationStatus.NeedMoreData)
        {
            return;
        }

        if (status == OperationStatus.InvalidData)
        {
            Fail(context, new WebSocketHandshakeException($"The server's answer is not a valid HTTP/1.1 head ({error})."));
            return;
        }

        string? subprotocol;
        DeflateParameters? deflate;
        try
        {
            subprotocol = Http1Handshake.ValidateResponse(head!, _key, _options.Subprotocols, _options.Deflate, out deflate);
        }
        catch (WebSocketHandshakeException refused)
        {
            rest?.Release();
            Fail(context, refused);
            return;
        }

        _done = true;
        _timeout?.Cancel();
        var websocket = new WebSocketChannelHandler(WebSocketRole.Client, _listenerFactory, _options.Session, _channel, subprotocol);
        if (deflate is { } parameters)
        {
            websocket.EnablePerMessageDeflate(parameters, _options.Deflate!);
        }

        context.Pipeline.AddAfter(context.Name, "websocket", websocket);
        _completion.TrySetResult(websocket);
        if (rest is not null)
        {
            context.FireChannelRead(rest);
        }

        context.Pipeline.Remove(this);
    }

    private void SendRequest(IChannelHandlerContext context)
    {
        if (_sent)
        {
            return;
        }

        _sent = true;
        bool defaultPort = _uri.IsDefaultPort || (_uri.Scheme == "ws" && _uri.Port == 80) || (_uri.Scheme == "wss" && _uri.Port == 443);
        string host = defaultPort ? _uri.IdnHost : $"{(_uri.HostNameType == UriHostNameType.IPv6 ? $"[{_uri.IdnHost}]" : _uri.IdnHost)}:{_uri.Port}";
        IByteBuffer request = context.Allocator.Buffer(512);
        try
        {
            IEnumerable<KeyValuePair<string, string>> headers = _options.Deflate is null
                ? _options.Headers
                : _options.Headers.Append(new("Sec-WebSocket-Extensions", PerMessageDeflateNegotiation.CreateOffer(_options.Deflate)));
            Http1Handshake.WriteRequest(request, host, _uri.PathAndQuery, _key, _options.Subprotocols, headers);
        }
        catch (Exception error)
        {
            request.Release();
            Fail(context, new WebSocketHandshakeException("The request could not be written: " + error.Message, error));
            return;
        }

        _ = context.WriteAndFlushAsync(request, context.VoidPromise());
    }

    private void OnTimeout(IChannelHandlerContext context)
    {
        if (!_done)
        {
            string progress = !_sent ? "the request was not sent: the connection never became active"
                : _head is { Length: > 0 } head ? $"{head.Length} bytes of its answer arrived"
                : "nothing of its answer arrived";
            Fail(context, new WebSocketHandshakeException($"The server did not answer within {_options.HandshakeTimeout.TotalSeconds:0.#} s ({progress}; reading {(context.Channel.Configuration.IsAutoRead ? "on" : "off")})."));
        }
    }

    private void Fail(IChannelHandlerContext context, WebSocketHandshakeException error)
    {
        if (_done)
        {
            return;
        }

        _done = true;
        _timeout?.Cancel();
        _completion.TrySetException(error);
        _ = context.CloseAsync();
    }

    private void Release()
    {
        _timeout?.Cancel();
        _head?.Dispose();
        _head = null;
    }
}
