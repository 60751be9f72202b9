using DotNetty.Buffers;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>One websocket on a SpanNetty channel, after the opening handshake: what the upgrade handlers put in their
/// place and complete with, to send on (<see cref="Sender"/>) and to watch (<see cref="Completion"/>). It is the core
/// <see cref="WebSocketDriver"/> (framing, the close handshake, timers, backpressure, the sender, groups, telemetry)
/// over the channel.</summary>
/// <remarks><para>Every whole frame of each inbound <c>IByteBuffer</c> is decoded in place (payloads unmasked in the
/// buffer's memory, no frame object, no copy) and handed to the <see cref="IWebSocketFrameListener"/>; what a read
/// produced is written with one write per pooled output buffer and one flush. The driver owns the outbound water marks
/// (the session's <c>OutboundHighWaterMark</c> and <c>OutboundLowWaterMark</c>): reads pause while an answering
/// listener's output waits for the peer, and a peer that stays above the high mark past the slow-consumer timeout gets
/// 1008. A protocol violation ends in exactly one Close with its status, then at once the end of our output (TCP FIN,
/// libuv's half-close, END_STREAM), then the input discarded unparsed (bounded in bytes and time) until the peer's
/// end.</para>
/// <para>Put it where the byte stream of an upgraded connection arrives (the upgrade handlers do); it passes on nothing
/// but <c>ChannelInactive</c> and writability events.</para></remarks>
public sealed class WebSocketChannelHandler : ChannelHandlerAdapter
{
    private readonly Func<WebSocketFrameSender, IWebSocketFrameListener> _listenerFactory;
    private readonly ChannelPort _port;
    private IChannelHandlerContext? _context;

    /// <summary>Creates the handler of one websocket.</summary>
    /// <param name="role">Which end this is: a server expects masked frames, a client masks its own.</param>
    /// <param name="listenerFactory">Given the sender, returns the callbacks (called once, when the handler is added).</param>
    /// <param name="session">Limits and timeouts of the protocol.</param>
    /// <param name="options">How the channel is used (output sizing).</param>
    /// <param name="subprotocol">The negotiated subprotocol, for the application to see.</param>
    public WebSocketChannelHandler(
        WebSocketRole role, Func<WebSocketFrameSender, IWebSocketFrameListener> listenerFactory, WebSocketSessionOptions? session = null,
        WebSocketChannelHandlerOptions? options = null, string? subprotocol = null)
    {
        ArgumentNullException.ThrowIfNull(listenerFactory);
        _listenerFactory = listenerFactory;
        _port = new ChannelPort((options ?? WebSocketChannelHandlerOptions.Default).OutputChunkSize);
        Driver = new WebSocketDriver(_port, role, session, subprotocol);
        _port.Driver = Driver;
    }

    /// <summary>The websocket itself: what this handler runs over its channel.</summary>
    public WebSocketDriver Driver { get; }

    /// <summary>Which end this is.</summary>
    public WebSocketRole Role => Driver.Role;

    /// <summary>The negotiated subprotocol, if any.</summary>
    public string? Subprotocol => Driver.Subprotocol;

    /// <summary>The protocol state.</summary>
    public WebSocketSessionState State => Driver.State;

    /// <summary>The permessage-deflate parameters the handshake settled, or null when it was not negotiated.</summary>
    public DeflateParameters? Deflate => Driver.Deflate;

    /// <summary>Completes when the websocket has ended (its output ended, the channel closing), with how it ended.</summary>
    public Task<WebSocketCloseInfo> Completion => Driver.Completion;

    /// <summary>Sends frames on this websocket (the core sender; see <see cref="ChannelFrameSenderExtensions"/> for
    /// frames in buffers of the channel's own).</summary>
    public WebSocketFrameSender Sender => Driver.Sender;

    /// <inheritdoc />
    public override void HandlerAdded(IChannelHandlerContext context)
    {
        _context = context;
        _port.Attach(context);
        Driver.Start(_listenerFactory(Driver.Sender));
        // The driver ends our direction (half-closed after a failure); the channel closes when the websocket has ended.
        _ = Driver.Completion.ContinueWith(
            static (_, state) => ((IChannelHandlerContext)state!).Channel.CloseAsync(), context,
            CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        if (!context.Channel.IsActive)
        {
            Driver.InputEnded();
        }
    }

    /// <inheritdoc />
    public override void HandlerRemoved(IChannelHandlerContext context)
    {
        if (!_port.Stopped)
        {
            Driver.Abort(); // taken out of a running pipeline; a websocket that is ending closes its channel itself
        }
    }

    /// <inheritdoc />
    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        if (message is IByteBuffer buffer)
        {
            _port.Receive(buffer);
        }
        else
        {
            context.FireChannelRead(message);
        }
    }

    /// <inheritdoc />
    public override void ChannelReadComplete(IChannelHandlerContext context)
    {
        if (!_port.Stopped)
        {
            Driver.ReadComplete();
        }
    }

    /// <inheritdoc />
    public override void ChannelWritabilityChanged(IChannelHandlerContext context) =>
        context.FireChannelWritabilityChanged(); // the driver's water marks decide, not the channel's

    /// <inheritdoc />
    public override void ChannelInactive(IChannelHandlerContext context)
    {
        if (!_port.Stopped)
        {
            Driver.InputEnded();
        }

        context.FireChannelInactive();
    }

    /// <inheritdoc />
    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception)
    {
        // A transport error (or a failed write): the websocket ends here. After the connection was failed (our Close
        // sent, our output ended) a reset is only how the transport ends: the driver keeps the violation as the cause.
        if (!_port.Stopped)
        {
            Driver.InputEnded(exception);
        }
    }

    /// <summary>Starts the close handshake from any thread; completes when the websocket has ended.</summary>
    internal Task<WebSocketCloseInfo> CloseAsync(CloseStatus status, string? reason) =>
        _context is not null ? Driver.CloseAsync(status, reason) : Completion;

    /// <summary>Turns permessage-deflate on, as the handshake settled it (before the handler is added: the upgrade
    /// handlers call it).</summary>
    internal void EnablePerMessageDeflate(DeflateParameters parameters, PerMessageDeflateOptions options) =>
        Driver.EnablePerMessageDeflate(parameters, options);
}
