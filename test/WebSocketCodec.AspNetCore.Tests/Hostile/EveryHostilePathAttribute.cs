using System.Reflection;
using Xunit.Sdk;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>A theory's data: every <see cref="HostilePath"/>, so each attack runs on every host.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class EveryHostilePathAttribute : DataAttribute
{
    /// <inheritdoc />
    public override IEnumerable<object[]> GetData(MethodInfo testMethod) =>
        Enum.GetValues<HostilePath>().Select(path => new object[] { path });
}
