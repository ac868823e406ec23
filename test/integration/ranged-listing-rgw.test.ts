import { describeRangedVersions } from '../support/ranged-versions.js'
import { startRgwCluster } from '../support/rgw-cluster.js'

describeRangedVersions('key ranges against Ceph RGW, with versions', startRgwCluster)
