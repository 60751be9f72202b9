namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>Results of tasks that an EmbeddedChannel completed synchronously.</summary>
internal static class Completed
{
    /// <summary>Asserts <paramref name="task"/> already succeeded and returns its result.</summary>
    public static T Result<T>(Task<T> task)
    {
        Assert.True(task.IsCompletedSuccessfully, $"The task is {task.Status}: {task.Exception?.GetBaseException().Message}");
        return task.Result;
    }
}
