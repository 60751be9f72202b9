using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>Small channel moves the handlers share.</summary>
internal static class ChannelActions
{
    /// <summary>Makes sure the channel reads (a drain must see the peer's answer even while reads were paused for
    /// writability).</summary>
    public static void EnsureReading(IChannelHandlerContext context)
    {
        if (!context.Channel.Configuration.IsAutoRead)
        {
            context.Channel.Configuration.IsAutoRead = true;
        }
    }

    /// <summary>Runs <paramref name="action"/> on the channel's event loop once <paramref name="lastWrite"/> completed,
    /// failed or not.</summary>
    public static void RunAfter(IChannelHandlerContext context, Task lastWrite, Action action)
    {
        if (lastWrite.IsCompleted && context.Executor.InEventLoop)
        {
            action();
            return;
        }

        _ = lastWrite.ContinueWith(
            static (_, state) =>
            {
                var (ctx, run) = ((IChannelHandlerContext, Action))state!;
                ctx.Executor.Execute(static o => ((Action)o!)(), run);
            },
            (context, action), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    /// <summary>Settles <paramref name="promise"/> as the finished <paramref name="write"/> ended: completed, or failed
    /// with its error (a cancelled write fails it with <see cref="ClosedChannelException"/>).</summary>
    public static void SettleLike(IPromise promise, Task write)
    {
        if (write.IsCompletedSuccessfully)
        {
            _ = promise.TryComplete();
        }
        else
        {
            _ = promise.TrySetException(write.Exception?.InnerException ?? new ClosedChannelException("The write was cancelled.", null!));
        }
    }
}
