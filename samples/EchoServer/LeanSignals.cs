using System.Runtime.InteropServices;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary>What the samples on the lean transport wait for to stop (Kestrel's host does it for the others): Ctrl+C
/// or SIGTERM.</summary>
public static class LeanSignals
{
    /// <summary>Completes on SIGINT, SIGTERM or <paramref name="cancellationToken"/>.</summary>
    public static async Task WaitAsync(CancellationToken cancellationToken = default)
    {
        var stop = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var terminate = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop);
        using var interrupt = PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop);
        try
        {
            await stop.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // Stopping.
        }

        void Stop(PosixSignalContext context)
        {
            context.Cancel = true;
            stop.TrySetResult();
        }
    }
}
