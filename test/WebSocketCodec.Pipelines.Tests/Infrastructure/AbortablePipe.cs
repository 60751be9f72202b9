using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines.Tests.Infrastructure;

/// <summary>A pipe transport that reports its aborts to the test and otherwise ends as a plain pipe does (its completed
/// writer is the end of our direction).</summary>
public sealed class AbortablePipe(IDuplexPipe inner, Action onAbort) : IWebSocketPipeTransport
{
    public PipeReader Input => inner.Input;

    public PipeWriter Output => inner.Output;

    public bool CanHalfClose => true;

    public ValueTask CloseOutputAsync() => inner.Output.CompleteAsync();

    public void Abort() => onAbort();
}
