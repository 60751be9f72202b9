using System.Buffers;
using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>Picks the websocket for a validated upgrade request, its callbacks or null to answer 404: give one to
/// <see cref="WebSocketServerUpgradeHandler"/> or <c>Http2WebSocketServer.Configure</c> to serve several paths or to
/// decide per request. <see cref="WebSocketRequestRoute"/> also sees the connection.</summary>
/// <param name="request">The validated request (headers, offered subprotocols).</param>
/// <param name="target">The request target: path and query, e.g. <c>/chat?room=1</c>.</param>
public delegate Func<WebSocketFrameSender, IWebSocketFrameListener>? WebSocketRoute(WebSocketUpgradeRequest request, string target);

/// <summary>The server's side of the HTTP/1.1 opening handshake (RFC 6455 §4.2) as the first handler of a SpanNetty
/// pipeline: add it to each accepted channel (after an <see cref="SslStreamHandler"/> for <c>wss://</c>) to serve
/// websockets over HTTP/1.1; for HTTP/2 streams use <see cref="Http2WebSocketServer"/>. No <c>HttpServerCodec</c> is
/// needed.</summary>
/// <remarks>It reads the request head within the size bound and the handshake timeout, validates it with the core's
/// strict rules (405, 400, 426 with <c>Sec-WebSocket-Version: 13</c>, 431, 403 for an origin refused, 404 for a path
/// not served), answers 101 (accepting permessage-deflate when <see cref="WebSocketAcceptOptions.Deflate"/> is set and
/// the client offers it) and puts a <see cref="WebSocketChannelHandler"/> in its own place, handing it the frames the
/// client sent right behind its request. A refusal is answered, then the connection is closed once the client closes or
/// after a second.</remarks>
public sealed class WebSocketServerUpgradeHandler : ChannelHandlerAdapter
{
    private static readonly TimeSpan RefusalLinger = TimeSpan.FromSeconds(1);

    private readonly Func<WebSocketUpgradeRequest, string, IChannel, Func<WebSocketFrameSender, IWebSocketFrameListener>?> _route;
    private readonly WebSocketAcceptOptions _accept;
    private readonly WebSocketChannelHandlerOptions _channel;
    private HeadAccumulator? _head;
    private IScheduledTask? _timeout;
    private bool _done;
    private readonly WebSocketAdmission? _open;

    /// <summary>Serves websockets at <paramref name="path"/> (any query), with <paramref name="listenerFactory"/>.</summary>
    public WebSocketServerUpgradeHandler(
        string path, Func<WebSocketFrameSender, IWebSocketFrameListener> listenerFactory, WebSocketAcceptOptions? accept = null, WebSocketChannelHandlerOptions? channel = null)
        : this(RouteFor(path, listenerFactory), accept, channel)
    {
    }

    /// <summary>Serves the websockets <paramref name="route"/> picks.</summary>
    public WebSocketServerUpgradeHandler(WebSocketRoute route, WebSocketAcceptOptions? accept = null, WebSocketChannelHandlerOptions? channel = null)
        : this(Adapt(route), accept, channel)
    {
    }

    /// <summary>Serves the websockets <paramref name="route"/> picks, telling it of the connection too (the client's
    /// certificate when an <see cref="SslStreamHandler"/> before this handler required one).</summary>
    public WebSocketServerUpgradeHandler(WebSocketRequestRoute route, WebSocketAcceptOptions? accept = null, WebSocketChannelHandlerOptions? channel = null)
        : this(Adapt(route), accept, channel)
    {
    }

    private WebSocketServerUpgradeHandler(
        Func<WebSocketUpgradeRequest, string, IChannel, Func<WebSocketFrameSender, IWebSocketFrameListener>?> route,
        WebSocketAcceptOptions? accept, WebSocketChannelHandlerOptions? channel)
    {
        _route = route;
        _accept = accept?.Clone() ?? new WebSocketAcceptOptions();
        _accept.Deflate?.Validate();
        _open = WebSocketAdmission.For(accept); // shared by the handlers made with the same options instance
        _channel = channel ?? WebSocketChannelHandlerOptions.Default;
    }

    /// <summary>The handshake's outcome: the websocket's handler once accepted; faults with
    /// <see cref="WebSocketHandshakeException"/> (with the status answered) when refused or timed out.</summary>
    public Task<WebSocketChannelHandler> Completion => _completion.Task;

    private readonly TaskCompletionSource<WebSocketChannelHandler> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <inheritdoc />
    public override void HandlerAdded(IChannelHandlerContext context)
    {
        _head = new HeadAccumulator(_accept.MaxRequestHeadLength);
        _timeout = context.Executor.Schedule(
            static (state, ctx) => ((WebSocketServerUpgradeHandler)state).OnTimeout((IChannelHandlerContext)ctx), this, context, _accept.HandshakeTimeout);
    }

    /// <inheritdoc />
    public override void HandlerRemoved(IChannelHandlerContext context) => Release();

    /// <inheritdoc />
    public override void ChannelInactive(IChannelHandlerContext context)
    {
        Fail(new WebSocketHandshakeException("The connection closed before the handshake was done."));
        Release();
        context.FireChannelInactive();
    }

    /// <inheritdoc />
    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception)
    {
        Fail(new WebSocketHandshakeException("The connection failed during the handshake.", exception));
        _ = context.CloseAsync();
    }

    /// <inheritdoc />
    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        OperationStatus status = HeadAccumulator.AppendRead(
            _done ? null : _head, message, context.Allocator, out HttpHead? head, out IByteBuffer? rest, out HttpHeadError error);
        if (status == OperationStatus.NeedMoreData)
        {
            return;
        }

        _done = true;
        _timeout?.Cancel();
        if (status == OperationStatus.InvalidData)
        {
            Refuse(context, HandshakeFailure.From(error));
            return;
        }

        Upgrade(context, head!, rest);
    }

    private void Upgrade(IChannelHandlerContext context, HttpHead head, IByteBuffer? rest)
    {
        Func<WebSocketFrameSender, IWebSocketFrameListener>? listenerFactory = null;
        bool counted = _open?.TryEnter() ?? true;
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(
            new WebSocketHandshakeFacts { Method = head.Method, HttpVersion = head.Version, Headers = head, Target = head.Target, OverCapacity = !counted },
            _accept, (request, target) => (listenerFactory = _route(request, target, context.Channel)) is not null);
        if (!decision.IsAccepted)
        {
            if (counted)
            {
                _open?.Leave();
            }

            rest?.Release();
            Refuse(context, decision.Failure);
            return;
        }

        IByteBuffer response = context.Allocator.Buffer(256);
        Http1Handshake.WriteResponse(response, decision);
        _ = context.WriteAndFlushAsync(response, context.VoidPromise());
        var websocket = new WebSocketChannelHandler(WebSocketRole.Server, listenerFactory!, _accept.Session, _channel, decision.Subprotocol);
        if (decision.Deflate is { } parameters)
        {
            websocket.EnablePerMessageDeflate(parameters, _accept.Deflate!);
        }

        _open?.LeaveWhenEnded(websocket.Driver);
        context.Pipeline.AddAfter(context.Name, "websocket", websocket);
        _completion.TrySetResult(websocket);
        if (rest is not null)
        {
            context.FireChannelRead(rest); // frames sent right behind the request
        }

        context.Pipeline.Remove(this);
    }

    private void Refuse(IChannelHandlerContext context, HandshakeFailure failure)
    {
        IByteBuffer response = context.Allocator.Buffer(256);
        Http1Handshake.WriteRejection(response, failure);
        Fail(new WebSocketHandshakeException(failure.Message, failure.StatusCode));
        // The response says Connection: close. Closing at once with unread input can reset the connection and erase the
        // response, so wait for the client to close, at most a second.
        _ = context.WriteAndFlushAsync(response).ContinueWith(
            static (_, state) => ((IChannelHandlerContext)state!).Executor.Schedule(
                static ctx => ((IChannelHandlerContext)ctx).CloseAsync(), state, RefusalLinger),
            context, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    private void OnTimeout(IChannelHandlerContext context)
    {
        if (_done)
        {
            return;
        }

        _done = true;
        Refuse(context, new HandshakeFailure(408, "No complete request head in time.")); // as Kestrel answers its header timeout
    }

    private void Fail(WebSocketHandshakeException error) => _completion.TrySetException(error);

    private void Release()
    {
        _timeout?.Cancel();
        _head?.Dispose();
        _head = null;
    }

    private static Func<WebSocketUpgradeRequest, string, IChannel, Func<WebSocketFrameSender, IWebSocketFrameListener>?> Adapt(WebSocketRoute route)
    {
        ArgumentNullException.ThrowIfNull(route);
        return (request, target, _) => route(request, target);
    }

    private static Func<WebSocketUpgradeRequest, string, IChannel, Func<WebSocketFrameSender, IWebSocketFrameListener>?> Adapt(WebSocketRequestRoute route)
    {
        ArgumentNullException.ThrowIfNull(route);
        return (request, target, connection) => route(new WebSocketServerRequest(request, target, connection));
    }

    private static WebSocketRoute RouteFor(string path, Func<WebSocketFrameSender, IWebSocketFrameListener> listenerFactory)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ArgumentNullException.ThrowIfNull(listenerFactory);
        return (_, target) =>
        {
            int query = target.IndexOf('?', StringComparison.Ordinal);
            ReadOnlySpan<char> targetPath = query < 0 ? target : target.AsSpan(0, query);
            return targetPath.SequenceEqual(path) ? listenerFactory : null;
        };
    }
}
