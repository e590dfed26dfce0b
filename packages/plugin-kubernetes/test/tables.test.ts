/**
 * CoreDNS's test tables and the outcome table, in one process: each file of tests pays for
 * loading the Kubernetes client once.
 */
import './handler-tables.js';
import './option-tables.js';
import './outcome-table.js';
