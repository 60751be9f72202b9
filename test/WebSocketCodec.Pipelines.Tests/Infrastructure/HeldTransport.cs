using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines.Tests.Infrastructure;

/// <summary>
/// A transport slow to end: a read that is cancelled (an abort) returns only once the test releases it, as a stream
/// may finish its read only when its connection is torn down. Everything else goes to the inner transport.
/// </summary>
public sealed class HeldTransport : IDuplexPipe
{
    private readonly TaskCompletionSource _release = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _held = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public HeldTransport(IDuplexPipe inner)
    {
        Input = new HeldReader(inner.Input, this);
        Output = inner.Output;
    }

    public PipeReader Input { get; }

    public PipeWriter Output { get; }

    /// <summary>Completes when a cancelled read is being held.</summary>
    public Task Held => _held.Task;

    /// <summary>Lets the held read return.</summary>
    public void Release() => _release.TrySetResult();

    private sealed class HeldReader(PipeReader inner, HeldTransport owner) : PipeReader
    {
        public override async ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
        {
            ReadResult result = await inner.ReadAsync(cancellationToken);
            if (result.IsCanceled)
            {
                owner._held.TrySetResult();
                await owner._release.Task;
            }

            return result;
        }

        public override bool TryRead(out ReadResult result) => inner.TryRead(out result);

        public override void AdvanceTo(SequencePosition consumed) => inner.AdvanceTo(consumed);

        public override void AdvanceTo(SequencePosition consumed, SequencePosition examined) => inner.AdvanceTo(consumed, examined);

        public override void CancelPendingRead() => inner.CancelPendingRead();

        public override void Complete(Exception? exception = null) => inner.Complete(exception);
    }
}
