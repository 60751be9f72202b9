namespace WebSocketCodec.Fuzz;

/// <summary>Thrown by an oracle when a check fails: the runner reports it as a violation with the input.</summary>
public sealed class OracleFailureException : Exception
{
    /// <summary>Creates a failure with what was wrong.</summary>
    public OracleFailureException(string message)
        : base(message)
    {
    }

    /// <summary>Creates a failure with no message.</summary>
    public OracleFailureException()
    {
    }

    /// <summary>Creates a failure with an inner exception.</summary>
    public OracleFailureException(string message, Exception inner)
        : base(message, inner)
    {
    }
}
