using System.Diagnostics.Metrics;

namespace WebSocketCodec.Akka.PingPong.Run;

/// <summary>Counts our transport's <c>Write</c> refusals during a run (each refusal stalls the association while Akka
/// buffers and retries) from the library's meter instrument <c>websocketcodec.akka.writes.refused</c>. The count is
/// the process's; runs are sequential, so it is one run's.</summary>
public sealed class RefusalProbe : IDisposable
{
    private const string Instrument = "websocketcodec.akka.writes.refused";
    private readonly MeterListener _listener = new();
    private long _count;

    private RefusalProbe()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == WebSocketTelemetry.Name && instrument.Name == Instrument)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((_, value, _, _) => Interlocked.Add(ref _count, value));
        _listener.Start();
    }

    /// <summary>Refusals since <see cref="Start"/>.</summary>
    public long Count => Interlocked.Read(ref _count);

    /// <summary>Starts counting.</summary>
    public static RefusalProbe Start() => new();

    /// <inheritdoc />
    public void Dispose() => _listener.Dispose();
}
