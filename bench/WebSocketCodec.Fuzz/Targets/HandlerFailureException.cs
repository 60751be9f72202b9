namespace WebSocketCodec.Fuzz;

/// <summary>What <see cref="FailingHandler"/> throws.</summary>
public sealed class HandlerFailureException : Exception
{
    /// <summary>Creates one.</summary>
    public HandlerFailureException()
        : base("the handler failed on purpose")
    {
    }

    /// <summary>Creates one with a message.</summary>
    public HandlerFailureException(string message)
        : base(message)
    {
    }

    /// <summary>Creates one with a message and an inner exception.</summary>
    public HandlerFailureException(string message, Exception inner)
        : base(message, inner)
    {
    }
}
