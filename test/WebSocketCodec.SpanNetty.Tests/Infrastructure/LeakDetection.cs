using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using DotNetty.Common;
using DotNetty.Common.Internal.Logging;
using Microsoft.Extensions.Logging;
using WebSocketCodec.SpanNetty.Benchmarks;

[assembly: CollectionBehavior(DisableTestParallelization = true)]

namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>
/// SpanNetty's ResourceLeakDetector at Paranoid for the whole run (every buffer tracked), its reports collected from
/// SpanNetty's logger: a buffer not released fails the test that leaked it (tests run one at a time, and each forces
/// the collections that let the detector see its garbage).
/// </summary>
internal static class LeakDetection
{
    private static readonly ConcurrentQueue<string> Reports = new();

    /// <summary>Runs before any SpanNetty type: the detector takes its logger once, in its static constructor.</summary>
    [ModuleInitializer]
    internal static void Initialize()
    {
        // Tests (EmbeddedChannel, the benchmarks' validation) allocate on threads that are not SpanNetty's, whose caches
        // SpanNetty's ThreadDeathWatcher frees while they are in use (see ThreadSafeAllocation); a test thread could
        // spin forever in such a cache.
        SpanNettyBenchmarkEntry.TurnOffPerThreadCaches();

        InternalLoggerFactory.DefaultFactory = LoggerFactory.Create(builder => builder
            .SetMinimumLevel(LogLevel.Error)
            .AddProvider(new ReportCollector()));
        ResourceLeakDetector.Level = ResourceLeakDetector.DetectionLevel.Paranoid;
    }

    /// <summary>Lets every unreachable buffer be finalized (the detector reports from the finalizer), then fails on
    /// any leak reported.</summary>
    public static void AssertNoLeaks()
    {
        List<string> leaks = CollectReports();
        Assert.True(leaks.Count == 0, "SpanNetty's leak detector reported:\n" + string.Join("\n\n", leaks));
    }

    /// <summary>Collects garbage and takes the reports made so far.</summary>
    public static List<string> CollectReports()
    {
        for (int i = 0; i < 3; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        var leaks = new List<string>();
        while (Reports.TryDequeue(out string? report))
        {
            leaks.Add(report);
        }

        return leaks;
    }

    private sealed class ReportCollector : ILoggerProvider, ILogger
    {
        public ILogger CreateLogger(string categoryName) => this;

        public void Dispose()
        {
        }

        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Error;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            string message = formatter(state, exception);
            if (message.Contains("LEAK", StringComparison.Ordinal))
            {
                Reports.Enqueue(message);
            }
        }
    }
}

/// <summary>Every SpanNetty test class: checks for leaked buffers after each test.</summary>
public abstract class LeakCheckedTests : IDisposable
{
    public void Dispose()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
    }

    protected virtual void Dispose(bool disposing)
    {
        if (disposing)
        {
            LeakDetection.AssertNoLeaks();
        }
    }
}
