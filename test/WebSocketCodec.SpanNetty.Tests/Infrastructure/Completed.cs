using DotNetty.Transport.Channels.Embedded;

namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>Results of tasks that an EmbeddedChannel completed.</summary>
internal static class Completed
{
    /// <summary>Asserts <paramref name="task"/> already succeeded and returns its result.</summary>
    public static T Result<T>(Task<T> task)
    {
        Assert.True(task.IsCompletedSuccessfully, $"The task is {task.Status}: {task.Exception?.GetBaseException().Message}");
        return task.Result;
    }

    /// <summary>Runs the channel's pending tasks until <paramref name="task"/> completed (the driver ends a websocket
    /// off the loop, then on it: its end takes a few rounds), for at most 10 seconds.</summary>
    public static void Settle(EmbeddedChannel channel, Task task)
    {
        for (int round = 0; round < 2000 && !task.IsCompleted; round++)
        {
            channel.RunPendingTasks();
            if (!task.IsCompleted)
            {
                _ = task.Wait(5);
            }
        }

        channel.RunPendingTasks();
    }

    /// <summary>Runs the channel's pending tasks until <paramref name="condition"/> holds (the driver's turns may be
    /// queued from another thread), for at most 10 seconds; returns whether it held.</summary>
    public static bool Until(EmbeddedChannel channel, Func<bool> condition)
    {
        for (int round = 0; round < 2000; round++)
        {
            channel.RunPendingTasks();
            if (condition())
            {
                return true;
            }

            Thread.Sleep(5);
        }

        return false;
    }

    /// <summary><see cref="Settle"/>, then <see cref="Result{T}(Task{T})"/>.</summary>
    public static T Result<T>(EmbeddedChannel channel, Task<T> task)
    {
        Settle(channel, task);
        return Result(task);
    }
}
