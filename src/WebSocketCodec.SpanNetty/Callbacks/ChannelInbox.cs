using DotNetty.Common.Concurrency;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// A SpanNetty websocket's side of broadcasts. On the channel's event loop the frame's bytes go into the output at
/// once; from any other thread the frame is retained and queued, and one task on the event loop appends every queued
/// frame and flushes once (the queue is its own task item: no allocation per frame).
/// </summary>
internal sealed class ChannelInbox(WebSocketChannelHandler handler, ChannelOutput output, ChannelFrameSender sender)
    : BroadcastInbox, IRunnable
{
    public override WebSocketRole Role => handler.Role;

    protected override bool CanSend => handler.CanSend;

    protected override bool IsWritable => sender.IsWritable;

    protected override long HighWaterMark => handler.HighWaterMark;

    protected override long HardLimit => handler.HardLimit;

    // Our buffer not yet written to the channel (an estimate off the event loop) and the channel's pending bytes.
    protected override long OutputBytes => output.Pending + ChannelActions.PendingBytes(handler.Context.Channel);

    protected override bool TryAppendNow(BroadcastFrame frame)
    {
        if (!handler.InEventLoop || !QueueIsEmpty)
        {
            return false;
        }

        AppendLocked(frame);
        FlushAfterFanOut(); // a channel flush can run handlers' code: not under the group's lock
        return true;
    }

    protected override void FlushAppended() => output.Flush();

    protected override bool Schedule()
    {
        try
        {
            handler.Context.Executor.Execute(this);
            return true;
        }
        catch (RejectedExecutionException)
        {
            return false; // the event loop is shut down: the channel is gone
        }
    }

    protected override ChunkWriter? TargetLocked => handler.CanSend && !sender.InMessage ? output : null;

    protected override void CloseSlowLocked() => handler.StartSlowConsumerClose(flush: true);

    /// <summary>On the event loop: appends queued frames while the channel is under its high water mark, flushes, and
    /// has the rest go in another task when the transport took the bytes at once (else at the next writability change).</summary>
    public void Run()
    {
        RunQueued();
        output.Flush();
        if (OutputBytes < HighWaterMark)
        {
            OutputDrained();
        }
    }
}
