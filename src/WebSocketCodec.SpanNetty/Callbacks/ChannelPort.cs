using System.Buffers;
using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// The core driver's port over a SpanNetty channel: received buffers go to the <see cref="WebSocketDriver"/> on the
/// channel's event loop, the driver's turns run there as one reusable task item, reading pauses and resumes through the
/// channel's auto-read, and our direction ends with a TCP output shutdown, libuv's half-close or an HTTP/2 END_STREAM
/// where the channel can, or with the channel's close. The output half is in <c>ChannelPort.Output.cs</c>.
/// </summary>
internal sealed partial class ChannelPort : IWebSocketTransport
{
    private readonly TurnItem _turnItem;
    private IChannelHandlerContext? _context;
    private IEventExecutor? _executor;
    private int _turnQueued;
    private bool _canHalfClose;

    public ChannelPort(int chunkSize)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(chunkSize);
        _chunkSize = chunkSize;
        _turnItem = new TurnItem(this);
        _flushItem = new FlushItem(this);
        _onLastWrite = OnLastWrite;
    }

    /// <summary>The websocket this port feeds (set once, right after both were created).</summary>
    public WebSocketDriver Driver { get; set; } = null!;

    /// <summary>Whether the driver stopped reading: what still arrives is released unread.</summary>
    public bool Stopped { get; private set; }

    public bool CanHalfClose => _canHalfClose;

    private IChannelHandlerContext Context => _context ?? throw new InvalidOperationException("The handler is not in a pipeline yet.");

    /// <summary>Binds the port to its place in the pipeline (on the event loop, when the handler is added).</summary>
    public void Attach(IChannelHandlerContext context)
    {
        _context = context;
        _executor = context.Executor; // fixed for the context's life; on an HTTP/2 stream each lookup walks to the parent
        IChannel channel = context.Channel;
        _canHalfClose = context.Pipeline.Get<Http2StreamByteAdapter>() is not null || channel is IDuplexChannel
            || LibuvHalfClose.CanShutdown(channel);

        // The driver owns the water marks: the channel's own are set out of reach, so SpanNetty never reports the
        // channel unwritable before the driver does (its writability events are passed on, not acted upon).
        IChannelConfiguration configuration = channel.Configuration;
        configuration.WriteBufferHighWaterMark = int.MaxValue;
        configuration.WriteBufferLowWaterMark = int.MaxValue - 1;
    }

    /// <summary>Hands one received buffer to the driver (payloads unmasked in its memory), then releases it.</summary>
    public void Receive(IByteBuffer buffer)
    {
        try
        {
            if (Stopped || !buffer.IsReadable())
            {
                return;
            }

            if (buffer.IsSingleIoBuffer && buffer is not CompositeByteBuffer)
            {
                // The buffer is ours until released: payloads are unmasked in its memory.
                Driver.Receive(buffer.GetSpan(buffer.ReaderIndex, buffer.ReadableBytes));
            }
            else
            {
                Driver.Receive(buffer.UnreadSequence);
            }
        }
        finally
        {
            buffer.Release();
        }
    }

    public void OnOutputEnding(long bytes)
    {
        if (_context?.Pipeline.Get<SslStreamHandler>() is { } tls)
        {
            tls.TrackNetworkWrites = true; // our output ends once the Close's record reached the transport
        }
    }

    public ValueTask EndOutputAsync(bool halfClose)
    {
        var ended = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        try
        {
            Context.Executor.Execute(
                static (port, args) =>
                {
                    var (half, done) = ((bool, TaskCompletionSource))args!;
                    ((ChannelPort)port).EndOutput(half, done);
                },
                this, (halfClose, ended));
        }
        catch (RejectedExecutionException)
        {
            ReleaseOutput();
            ended.TrySetResult(); // the event loop is gone, and the channel with it
        }

        return new ValueTask(ended.Task);
    }

    public void Abort() => _ = _context?.Channel.CloseAsync();

    public void PauseReading() => SetAutoRead(false);

    public void ResumeReading() => SetAutoRead(true);

    public void StopReading()
    {
        Stopped = true;
        SetAutoRead(false);
    }

    public void ScheduleTurn()
    {
        if (Interlocked.Exchange(ref _turnQueued, 1) != 0)
        {
            return; // a turn is queued already: it runs what this one asked for
        }

        try
        {
            Context.Executor.Execute(_turnItem);
        }
        catch (RejectedExecutionException)
        {
            // The event loop shut down: the channel is gone and so is the websocket's input.
        }
    }

    /// <summary>Ends our direction on the event loop, after the driver's last flush: a half-close where asked and
    /// possible (behind the TLS record of our Close when TLS is in the pipeline), else the channel's close.</summary>
    private void EndOutput(bool halfClose, TaskCompletionSource ended)
    {
        ReleaseOutput(); // what was never flushed (the websocket was given up) goes back to the pool
        IChannelHandlerContext context = Context;
        IChannel channel = context.Channel;
        if (!channel.IsActive)
        {
            ended.TrySetResult();
            return;
        }

        if (!halfClose)
        {
            Settle(context.CloseAsync(), ended);
            return;
        }

        if (context.Pipeline.Get<Http2StreamByteAdapter>() is { } stream)
        {
            stream.EndOutput(context.Pipeline.Context(stream)); // END_STREAM behind our last DATA frame
            ended.TrySetResult();
            return;
        }

        Task written = context.Pipeline.Get<SslStreamHandler>() is { } tls ? tls.LastNetworkWrite : Task.CompletedTask;
        ChannelActions.RunAfter(context, written, () =>
        {
            if (!channel.IsActive)
            {
                ended.TrySetResult();
            }
            else if (channel is IDuplexChannel duplex)
            {
                Settle(duplex.ShutdownOutputAsync(), ended);
            }
            else
            {
                _ = LibuvHalfClose.TryShutdown(channel);
                ended.TrySetResult();
            }
        });
    }

    private static void Settle(Task task, TaskCompletionSource ended) => _ = task.ContinueWith(
        static (_, state) => ((TaskCompletionSource)state!).TrySetResult(), ended,
        CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default); // a failure: gone already

    private void SetAutoRead(bool read)
    {
        IChannelConfiguration configuration = Context.Channel.Configuration;
        if (configuration.IsAutoRead != read)
        {
            configuration.IsAutoRead = read;
        }
    }

    /// <summary>The driver's turn as the executor's task item: queued at most once at a time, no allocation.</summary>
    private sealed class TurnItem(ChannelPort port) : IRunnable
    {
        public void Run()
        {
            Volatile.Write(ref port._turnQueued, 0);
            port.Driver.RunTurn();
        }
    }
}
