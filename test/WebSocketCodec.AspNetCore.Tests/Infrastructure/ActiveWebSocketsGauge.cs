using System.Diagnostics.Metrics;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>Follows the <c>websocketcodec.connections.active</c> metric from the moment it is made: the sum of what
/// websockets added and removed since. Meaningful only while no other test opens websockets (a serial collection).</summary>
public sealed class ActiveWebSocketsGauge : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly Lock _sync = new();
    private long _value;
    private TaskCompletionSource? _zero;

    public ActiveWebSocketsGauge()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == "WebSocketCodec" && instrument.Name == "websocketcodec.connections.active")
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((_, delta, _, _) => Add(delta));
        _listener.Start();
    }

    public long Value
    {
        get
        {
            lock (_sync)
            {
                return _value;
            }
        }
    }

    /// <summary>Completes when as many websockets ended as began since this gauge was made.</summary>
    public Task WhenZeroAsync(CancellationToken cancellationToken)
    {
        lock (_sync)
        {
            if (_value == 0)
            {
                return Task.CompletedTask;
            }

            _zero ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return _zero.Task.WaitAsync(cancellationToken);
        }
    }

    private void Add(long delta)
    {
        lock (_sync)
        {
            _value += delta;
            if (_value == 0)
            {
                _zero?.TrySetResult();
                _zero = null;
            }
        }
    }

    public void Dispose() => _listener.Dispose();
}
