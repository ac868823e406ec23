import { describeRangedVersions } from '../support/ranged-versions.js'
import { startSwiftCluster, swiftSkipReason } from '../support/swift-cluster.js'

describeRangedVersions('key ranges against OpenStack Swift (s3api), with versions', startSwiftCluster, {
  skip: swiftSkipReason(),
})
