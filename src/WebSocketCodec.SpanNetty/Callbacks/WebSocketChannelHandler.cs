using System.Runtime.CompilerServices;
using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// One websocket on a SpanNetty channel, after the opening handshake: the handler decodes every whole frame of each
/// inbound <c>IByteBuffer</c> in place (payloads unmasked in the buffer's memory, no frame object, no copy, no
/// allocation), hands data frames to the <see cref="IWebSocketFrameListener"/>, answers Pings, runs the close handshake and
/// the timers of the core <see cref="WebSocketSession"/>, and writes what the read cycle produced with one write per
/// pooled output buffer and one flush when the cycle ends. The session's outbound water marks set the channel's
/// (reads pause while it is not writable; a peer that stays above the high mark past the slow-consumer timeout gets
/// 1008). A protocol violation ends in exactly one Close with its status, then at once the end of our output (TCP FIN,
/// END_STREAM), then the input discarded unparsed (bounded in bytes and time) until the peer's FIN or END_STREAM.
/// </summary>
/// <remarks>Put it where the byte stream of an upgraded connection arrives (the upgrade handlers do); it passes on
/// nothing but <c>ChannelInactive</c> and writability events.</remarks>
public sealed partial class WebSocketChannelHandler : ChannelHandlerAdapter
{
    private readonly Func<ChannelFrameSender, IWebSocketFrameListener> _listenerFactory;
    private readonly WebSocketChannelHandlerOptions _options;
    private readonly WebSocketSession _session;
    private readonly TimeProvider _time;
    private readonly TaskCompletionSource<WebSocketCloseInfo> _completion =
        new(TaskCreationOptions.RunContinuationsAsynchronously);

    private IChannelHandlerContext? _context;
    private IEventExecutor? _executor;
    private ChannelOutput? _output;
    private ChannelFrameSender? _sender;
    private IWebSocketFrameListener? _listener;
    private bool _listenerPending;
    private bool _answering; // the callbacks sent from the latest read (an echo): reads pause while not writable
    private (DeflateParameters Parameters, PerMessageDeflateOptions Options)? _deflate; // turned on when added

    /// <summary>Creates the handler of one websocket.</summary>
    /// <param name="role">Which end this is: a server expects masked frames, a client masks its own.</param>
    /// <param name="listenerFactory">Given the sender, returns the callbacks (called once, when the handler is added).</param>
    /// <param name="session">Limits and timeouts of the protocol.</param>
    /// <param name="options">How the channel is used (output sizing, backpressure, drain bound).</param>
    /// <param name="subprotocol">The negotiated subprotocol, for the application to see.</param>
    public WebSocketChannelHandler(
        WebSocketRole role, Func<ChannelFrameSender, IWebSocketFrameListener> listenerFactory, WebSocketSessionOptions? session = null,
        WebSocketChannelHandlerOptions? options = null, string? subprotocol = null)
    {
        ArgumentNullException.ThrowIfNull(listenerFactory);
        _listenerFactory = listenerFactory;
        _options = options ?? WebSocketChannelHandlerOptions.Default;
        _session = new WebSocketSession(role, session);
        _time = _session.Options.TimeProvider ?? TimeProvider.System;
        Subprotocol = subprotocol;
    }

    /// <summary>Which end this is.</summary>
    public WebSocketRole Role => _session.Role;

    /// <summary>The negotiated subprotocol, if any.</summary>
    public string? Subprotocol { get; }

    /// <summary>The protocol state.</summary>
    public WebSocketSessionState State => _session.State;

    /// <summary>The permessage-deflate parameters the handshake settled, or null when it was not negotiated.</summary>
    public DeflateParameters? Deflate => _deflate?.Parameters;

    /// <summary>Completes when the websocket has ended (the channel is closed), with how it ended.</summary>
    public Task<WebSocketCloseInfo> Completion => _completion.Task;

    /// <summary>The sender, once the handler is in a pipeline.</summary>
    public ChannelFrameSender Sender => _sender ?? throw new InvalidOperationException("The handler is not in a pipeline yet.");

    internal IChannelHandlerContext Context => _context ?? throw new InvalidOperationException("The handler is not in a pipeline yet.");

    /// <summary>Whether the calling thread is the channel's event loop.</summary>
    internal bool InEventLoop => (_executor ?? Context.Executor).InEventLoop;

    internal long HighWaterMark => _session.Options.OutboundHighWaterMark;

    internal long HardLimit => _session.Options.OutboundHardLimit;

    internal bool CanSend => _session.State == WebSocketSessionState.Open && !_closing && _context is { Channel.IsActive: true };

    /// <inheritdoc />
    public override void HandlerAdded(IChannelHandlerContext context)
    {
        _context = context;
        _executor = context.Executor; // fixed for the context's life; on an HTTP/2 stream each lookup walks to the parent
        _output = new ChannelOutput(context, _options.OutputChunkSize);
        // Every call into the session happens on the event loop, so its control frames go straight into the output,
        // in order with the application's frames.
        _session.Output = _output;
        _sender = new ChannelFrameSender(this, _output, _session.Encoder);
        if (_deflate is var (parameters, deflate))
        {
            _session.EnablePerMessageDeflate(parameters); // inbound: RSV1 legal on a message's first frame, inflated
            _sender.EnablePerMessageDeflate(parameters, deflate, _session.Options.Pool ?? System.Buffers.ArrayPool<byte>.Shared);
        }

        _listener = _listenerFactory(_sender);
        // The session's outbound water marks drive the channel's writability.
        IChannelConfiguration configuration = context.Channel.Configuration;
        int high = (int)Math.Min(int.MaxValue, _session.Options.OutboundHighWaterMark);
        int low = (int)Math.Min(int.MaxValue, _session.Options.OutboundLowWaterMark);
        if (high >= configuration.WriteBufferLowWaterMark)
        {
            configuration.WriteBufferHighWaterMark = high;
            configuration.WriteBufferLowWaterMark = low;
        }
        else
        {
            configuration.WriteBufferLowWaterMark = low;
            configuration.WriteBufferHighWaterMark = high;
        }

        ArmTimer();
        if (!context.Channel.IsActive)
        {
            Finish();
        }
    }

    /// <inheritdoc />
    public override void HandlerRemoved(IChannelHandlerContext context) => Finish();

    /// <inheritdoc />
    public override void ChannelReadComplete(IChannelHandlerContext context)
    {
        if (_listener is { } callbacks && !_finished)
        {
            try
            {
                ValueTask done = callbacks.OnReadCompleteAsync(CancellationToken.None);
                if (done.IsCompletedSuccessfully)
                {
                    done.GetAwaiter().GetResult();
                }
                else
                {
                    PauseReadsUntil(context, done.AsTask());
                }

                _answering |= _sender!.LoopSent;
            }
            catch (Exception error)
            {
                // The application failed: 1011, then the drain until the peer's Close.
                _error ??= error;
                _session.OnHandlerFailed();
                AfterReceive(System.Buffers.OperationStatus.InvalidData);
            }
        }

        _output?.Flush();
        if (_answering && !context.Channel.IsWritable)
        {
            UpdateReading(context, writable: false); // the answers just written filled the channel
        }
    }

    /// <inheritdoc />
    public override void ChannelWritabilityChanged(IChannelHandlerContext context)
    {
        bool writable = context.Channel.IsWritable;
        UpdateReading(context, writable);

        if (writable)
        {
            _slowWatch.Writable();
            _sender?.InboxIfAny?.Run(); // group messages that waited for the channel go first, before waiting sends
        }
        else
        {
            _slowWatch.Waiting(_time.GetTimestamp(), Progress(context.Channel));
            if (_session.Options.SlowConsumerTimeout > TimeSpan.Zero && !_finished)
            {
                ArmTimer();
            }
        }

        _sender?.OnWritabilityChanged(writable);
        _listener?.OnWritabilityChanged(writable);
        context.FireChannelWritabilityChanged();
    }

    /// <summary>Pauses reading while the channel is not writable and the callbacks answer what they read (an echo makes
    /// output as fast as the peer sends); callbacks that only consume keep reading, so two peers that stream to each
    /// other never stop each other. After our Close nothing more is sent, so reading goes on to find the peer's answer.
    /// </summary>
    /// <summary>The listener's read-complete work is pending: reads pause until it completes (a failure is the
    /// application's: 1011 and the drain).</summary>
    private void PauseReadsUntil(IChannelHandlerContext context, Task pending)
    {
        _listenerPending = true;
        context.Channel.Configuration.IsAutoRead = false;
        _ = pending.ContinueWith(
            static (done, state) =>
            {
                var self = (WebSocketChannelHandler)state!;
                self.Context.Executor.Execute(static (handler, task) => ((WebSocketChannelHandler)handler).OnListenerDone((Task)task), self, done);
            },
            this, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    private void OnListenerDone(Task done)
    {
        _listenerPending = false;
        if (_finished)
        {
            return;
        }

        if (done.Exception is { } failed)
        {
            _error ??= failed.InnerException ?? failed;
            _session.OnHandlerFailed();
            AfterReceive(System.Buffers.OperationStatus.InvalidData);
            _output?.Flush();
            ChannelActions.EnsureReading(Context);
            return;
        }

        IChannelHandlerContext context = Context;
        UpdateReading(context, context.Channel.IsWritable);
        if (_session.State != WebSocketSessionState.Open || !_options.PauseReadsWhenUnwritable)
        {
            ChannelActions.EnsureReading(context);
        }
    }

    private void UpdateReading(IChannelHandlerContext context, bool writable)
    {
        if (_listenerPending)
        {
            return; // resumed when the listener's work completes
        }

        if (_options.PauseReadsWhenUnwritable && _session.State == WebSocketSessionState.Open)
        {
            bool read = writable || !_answering;
            if (context.Channel.Configuration.IsAutoRead != read)
            {
                context.Channel.Configuration.IsAutoRead = read;
            }
        }
    }

    /// <inheritdoc />
    public override void ChannelInactive(IChannelHandlerContext context)
    {
        Finish();
        context.FireChannelInactive();
    }

    /// <inheritdoc />
    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception)
    {
        // A transport error (or a failed write): the websocket ends here. After the connection was failed (our Close
        // sent, our output ended) a reset is only how the transport ends: the violation stays the cause.
        if (!_session.IsDraining)
        {
            _error ??= exception;
        }

        _ = context.CloseAsync();
    }

    /// <summary>Starts the close handshake from any thread; completes when the websocket has ended.</summary>
    internal Task<WebSocketCloseInfo> CloseAsync(CloseStatus status, string? reason)
    {
        IChannelHandlerContext context = Context;
        if (context.Executor.InEventLoop)
        {
            StartClose(status, reason);
        }
        else
        {
            context.Executor.Execute(static (self, args) =>
            {
                var (status, reason) = ((CloseStatus, string?))args;
                ((WebSocketChannelHandler)self).StartClose(status, reason);
            }, this, (status, reason));
        }

        return Completion;
    }

    /// <summary>Turns permessage-deflate on, as the handshake settled it (before the handler is added: the upgrade
    /// handlers call it).</summary>
    internal void EnablePerMessageDeflate(DeflateParameters parameters, PerMessageDeflateOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (_context is not null)
        {
            throw new InvalidOperationException("permessage-deflate is turned on before the handler is added.");
        }

        _deflate = (parameters, options);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void CheckOnLoop() => SendGuard.OnLoop(
        InEventLoop, "Synchronous sends are for the channel's event loop (the callbacks); from other threads use SendAsync.");

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void CheckCanSend() => SendGuard.CanSend(CanSend, closing: _session.State != WebSocketSessionState.Open || _closing);
}
