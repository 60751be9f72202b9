using DotNetty.Buffers;
using DotNetty.Codecs.Http2;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// Turns an HTTP/2 stream's child channel (an <c>Http2MultiplexHandler</c> child) into the byte stream a websocket
/// runs on, for either end: the content of each inbound DATA frame is passed on as an <see cref="IByteBuffer"/> (the
/// frame's release is the buffer's), and every <see cref="IByteBuffer"/> written becomes a DATA frame. The stream's
/// end maps to the transport's: the peer's END_STREAM is the websocket's FIN (the channel closes after the read that
/// carried it, as a socket closes at its end of input); closing the channel once the websocket has sent its Close (or
/// after the peer ended) sends END_STREAM (an empty DATA frame) and waits, bounded, for the peer's; closing it
/// otherwise is an abort: RST_STREAM CANCEL. A websocket that failed the connection ends our side alone at once
/// (END_STREAM, the peer's side read to its END_STREAM; its close before that resets the stream). The peer's RST_STREAM, or a GOAWAY that leaves this stream out, ends this
/// websocket only. Flow control is the child channel's: it returns WINDOW_UPDATE when it is asked to read again, after
/// the handlers behind this one processed the bytes (so a websocket whose application stops reading stalls only its
/// own stream), and its writability follows the stream's outbound bytes and the peer's window.
/// </summary>
/// <remarks>Put it first in the child channel's pipeline, in front of a <see cref="WebSocketChannelHandler"/> or, in
/// handshake-only mode, the application's own byte handler (which may write a <c>DefaultHttp2ResetFrame</c> to abort).
/// Without a <see cref="WebSocketChannelHandler"/> behind it, every close is a graceful END_STREAM.</remarks>
internal sealed class Http2StreamByteAdapter : ChannelDuplexHandler
{
    private readonly TimeSpan _endStreamTimeout;
    private IScheduledTask? _linger;
    private bool _localEnded;
    private bool _remoteEnded;
    private bool _eofSignaled;
    private bool _reset;
    private bool _forceClose;
    private bool _endedAlone; // END_STREAM sent by EndOutput while the channel stays open for the peer's end

    /// <summary>Creates the adapter of one stream.</summary>
    /// <param name="endStreamTimeout">How long, after our END_STREAM, the peer has to end its side before the stream is
    /// reset (5 seconds by default).</param>
    public Http2StreamByteAdapter(TimeSpan? endStreamTimeout = null)
    {
        _endStreamTimeout = endStreamTimeout ?? TimeSpan.FromSeconds(5);
        ArgumentOutOfRangeException.ThrowIfLessThan(_endStreamTimeout, TimeSpan.Zero, nameof(endStreamTimeout));
    }

    /// <summary>Whether we sent END_STREAM.</summary>
    public bool LocalEnded => _localEnded;

    /// <summary>Whether the peer ended its side (END_STREAM) or reset the stream.</summary>
    public bool RemoteEnded => _remoteEnded;

    /// <inheritdoc />
    public override bool IsSharable => false;

    /// <inheritdoc />
    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        switch (message)
        {
            case IHttp2DataFrame data:
                bool end = data.IsEndStream;
                if (data.Content.IsReadable() && !_remoteEnded)
                {
                    context.FireChannelRead(data.Content); // the reader releases it, and with it the frame
                }
                else
                {
                    data.Release();
                }

                _remoteEnded |= end;
                break;
            case IHttp2HeadersFrame headers:
                // Trailers: nothing for the byte stream, but they may end it.
                _remoteEnded |= headers.IsEndStream;
                break;
            default:
                context.FireChannelRead(message);
                break;
        }
    }

    /// <inheritdoc />
    public override void ChannelReadComplete(IChannelHandlerContext context)
    {
        context.FireChannelReadComplete(); // the handlers behind process (and flush) what they read first
        if (_remoteEnded && !_eofSignaled)
        {
            // The peer's END_STREAM is the transport's end of input: as a socket closes when its input ends, the
            // channel closes, with our own END_STREAM (so no reset) behind whatever was written.
            _eofSignaled = true;
            _ = context.Channel.CloseAsync();
        }
    }

    /// <inheritdoc />
    public override void UserEventTriggered(IChannelHandlerContext context, object evt)
    {
        switch (evt)
        {
            case IHttp2ResetFrame reset:
                OnStreamGone(context, $"The peer reset the stream ({reset.ErrorCode}).");
                return;
            case IHttp2GoAwayFrame goAway:
                // The multiplexer tells only the streams the GOAWAY leaves out (above its last stream id): the codec
                // closes them, so they never complete.
                OnStreamGone(context, $"The peer's GOAWAY ({goAway.ErrorCode}) refused this stream (last stream {goAway.LastStreamId}).");
                return;
            default:
                context.FireUserEventTriggered(evt);
                return;
        }
    }

    /// <inheritdoc />
    public override void Write(IChannelHandlerContext context, object message, IPromise promise)
    {
        if (message is not IByteBuffer buffer)
        {
            context.WriteAsync(message, promise); // stream frames (a reset, for instance) pass as they are
            return;
        }

        if (_localEnded || _reset)
        {
            buffer.Release();
            promise.TrySetException(new ClosedChannelException("The stream's output has ended.", null!));
            return;
        }

        if (!buffer.IsReadable())
        {
            buffer.Release();
            promise.TryComplete();
            return;
        }

        context.WriteAsync(new DefaultHttp2DataFrame(buffer, endStream: false), promise);
    }

    /// <inheritdoc />
    public override void Close(IChannelHandlerContext context, IPromise promise)
    {
        IChannel channel = context.Channel;
        if (_forceClose || !channel.IsActive)
        {
            CancelLinger();
            context.CloseAsync(promise);
            return;
        }

        if (_endedAlone && !_remoteEnded && !_reset)
        {
            // Our side ended alone (a failed websocket) and the peer never ended its side before the websocket gave up:
            // RST_STREAM CANCEL.
            CancelLinger();
            context.CloseAsync(promise);
            return;
        }

        if (_reset || _localEnded)
        {
            // The stream is gone or ending: the child channel closes when the codec closes the stream (or the linger
            // ends), without a reset of its own.
            Link(channel.CloseCompletion, promise);
            return;
        }

        if (!EndsGracefully(context))
        {
            CancelLinger();
            context.CloseAsync(promise); // the child channel resets a stream it closes before both sides ended: CANCEL
            return;
        }

        _localEnded = true;
        Link(channel.CloseCompletion, promise);
        ChannelActions.EnsureReading(context); // the peer's END_STREAM must be read for the stream to close
        // Both ends ended: the codec closes the stream, and with it the child channel. Otherwise the peer has a bound.
        _linger = context.Executor.Schedule(static (state, ctx) => ((Http2StreamByteAdapter)state).ForceClose((IChannelHandlerContext)ctx), this, context, _endStreamTimeout);
        // END_STREAM in a step of its own: a close that runs inside the codec's write of this stream's last DATA frame
        // (its promise completes there when SslStreamHandler encrypts at once) would have the empty frame merged into
        // the one being written, after its header went out: the END_STREAM flag would be lost.
        context.Executor.Execute(static (state, ctx) => ((Http2StreamByteAdapter)state).EndStream((IChannelHandlerContext)ctx), this, context);
    }

    /// <summary>Ends our side of the stream (END_STREAM behind what was written) while the channel stays open to read
    /// the peer's side to its END_STREAM, which closes the channel: a websocket that failed the connection. Its close
    /// before the peer ended resets the stream.</summary>
    internal void EndOutput(IChannelHandlerContext context)
    {
        if (_localEnded || _reset || !context.Channel.IsActive)
        {
            return;
        }

        _localEnded = true;
        _endedAlone = true;
        ChannelActions.EnsureReading(context);
        context.Executor.Execute(static (state, ctx) => ((Http2StreamByteAdapter)state).EndStream((IChannelHandlerContext)ctx), this, context);
    }

    private void EndStream(IChannelHandlerContext context)
    {
        if (_reset || !context.Channel.IsActive)
        {
            return;
        }

        Task ended = context.WriteAndFlushAsync(new DefaultHttp2DataFrame(Unpooled.Empty, endStream: true));
        _ = ended.ContinueWith(
            static (done, state) =>
            {
                var (self, ctx) = ((Http2StreamByteAdapter, IChannelHandlerContext))state!;
                if (!done.IsCompletedSuccessfully)
                {
                    ctx.Executor.Execute(static (s, c) => ((Http2StreamByteAdapter)s).ForceClose((IChannelHandlerContext)c), self, ctx);
                }
            },
            (this, context), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    /// <inheritdoc />
    public override void ChannelInactive(IChannelHandlerContext context)
    {
        CancelLinger();
        context.FireChannelInactive();
    }

    /// <inheritdoc />
    public override void HandlerRemoved(IChannelHandlerContext context) => CancelLinger();

    private bool EndsGracefully(IChannelHandlerContext context)
    {
        if (_remoteEnded)
        {
            return true; // the peer ended first: ending ours completes the stream
        }

        WebSocketChannelHandler? websocket = context.Pipeline.Get<WebSocketChannelHandler>();
        // Our Close went out (or the handshake finished): END_STREAM. Still open: an abort.
        return websocket is null || websocket.State != WebSocketSessionState.Open;
    }

    private void OnStreamGone(IChannelHandlerContext context, string reason)
    {
        if (_reset)
        {
            return;
        }

        _reset = true;
        _remoteEnded = true;
        _eofSignaled = true;
        // The codec closes the stream right after this event; the child channel closes when it reads again.
        ChannelActions.EnsureReading(context);
        context.Read();
        context.FireExceptionCaught(new ClosedChannelException(reason, null!));
    }

    private void ForceClose(IChannelHandlerContext context)
    {
        _linger = null;
        if (!context.Channel.IsActive)
        {
            return;
        }

        _forceClose = true;
        _ = context.CloseAsync();
    }

    private void CancelLinger()
    {
        _linger?.Cancel();
        _linger = null;
    }

    private static void Link(Task completion, IPromise promise)
    {
        if (promise.IsVoid)
        {
            return;
        }

        if (completion.IsCompleted)
        {
            promise.TryComplete();
            return;
        }

        _ = completion.ContinueWith(
            static (_, state) => ((IPromise)state!).TryComplete(), promise,
            CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }
}
